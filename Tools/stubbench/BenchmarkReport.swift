#if Tools
import Foundation

/// The JSON report of a full run (docs/benchmarks.json); tools read its keys, so they stay as they are.
struct BenchmarkReport: Codable {
    var cores: Int
    var mode: String
    var results: [Stats]
    var throughputRequestsPerSecond: Double
    var inFlight: Int
    var largeFileMB: Int
    var memoryAboveIdleMB: Double
    var targets: [[String: String]]
    var notes: [String]

    /// Writes the report as sorted, pretty-printed JSON, creating the folder it goes in.
    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let url = URL(fileURLWithPath: path)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(self).write(to: url)
    }
}
#endif
