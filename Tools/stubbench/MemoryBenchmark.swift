#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit

/// The peak resident memory above idle while a stubbed session serves one large response file.
struct MemoryBenchmark {
    let configuration: BenchmarkConfiguration

    struct Result {
        var largeFileMB: Int
        var memoryAboveIdleMB: Double
    }

    func run() throws -> Result {
        let bigSize = (configuration.quick ? 20 : 200) << 20
        let bigFolder = try configuration.makeBundle("big", rulesJSON: #"[ { "path": "/big", "response": "big.bin" } ]"#)
        _ = FileManager.default.createFile(atPath: bigFolder.appendingPathComponent("big.bin").path, contents: nil)
        let handle = try FileHandle(forWritingTo: bigFolder.appendingPathComponent("big.bin"))
        let block = Data(repeating: 0x61, count: 1 << 20)
        for _ in 0..<(bigSize >> 20) { handle.write(block) }
        try handle.close()
        let engine = StubEngine()
        try engine.activate(folder: bigFolder)
        let delegate = CountingDelegate()
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral), delegate: delegate, delegateQueue: nil)
        // Reset the peak-RSS mark (Linux: writing 5 to clear_refs), so the peak is this transfer's alone.
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let idleRSS = Self.residentKB("VmRSS"), idleAnon = Self.residentKB("RssAnon")
        session.dataTask(with: URL(string: "https://api.example.com/big")!).resume()
        // A stubbed session is answered only while its engine lives.
        withExtendedLifetime(engine) { delegate.done.wait() }
        let peakRSS = Self.residentKB("VmHWM"), afterAnon = Self.residentKB("RssAnon")
        precondition(delegate.bytes == bigSize, "received \(delegate.bytes) of \(bigSize) bytes")
        let memoryAboveIdleMB = Double(peakRSS - idleRSS) / 1024
        let anonAboveIdleMB = Double(afterAnon - idleAnon) / 1024
        print(String(format: "%-62@ %9.1f MB peak RSS above idle (%.1f MB anonymous after)", "serving a \(bigSize >> 20) MB response file" as NSString, memoryAboveIdleMB, anonAboveIdleMB))
        return Result(largeFileMB: bigSize >> 20, memoryAboveIdleMB: memoryAboveIdleMB)
    }

    /// A field of /proc/self/status in kB, or -1 where there is none.
    static func residentKB(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }
}
#endif
