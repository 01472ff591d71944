#if Tools
// stubbench --adversarial: hostile input shapes at size n and 10n, to show that the
// readers' time grows linearly (a 10x input takes about 10x, not 100x). Prints a Markdown table.
//
//   swift run --traits Tools stubbench --adversarial
import Foundation
import StubKit

/// One shape: builds an input of size n and reads it the way the engine and linter do.
struct AdversarialShape {
    var name: String
    var unit: String
    var n: Int
    var run: (Int) -> Void
}

func adversarialShapes() -> [AdversarialShape] {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stubbench-adversarial-\(getpid())")
    func load(_ rules: String) {
        try? FileManager.default.removeItem(at: folder)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? Data(rules.utf8).write(to: folder.appendingPathComponent("stubsRules.json"))
        _ = BundleLoader(options: .lint).load(folder: folder)
    }
    return [
        AdversarialShape(name: "JSON string of n `\\n` escapes", unit: "escapes", n: 100_000) { n in
            _ = try? JSONSourceParser().parse(Data(("[\"" + String(repeating: "\\n", count: n) + "\"]").utf8))
        },
        AdversarialShape(name: "rule whose `query` has n keys (duplicate-key check)", unit: "keys", n: 100_000) { n in
            load("[{\"path\": \"/a\", \"query\": {" + (0..<n).map { "\"q\($0)\": \"v\"" }.joined(separator: ",") + "}}]")
        },
        AdversarialShape(name: "unknown key of n bytes (did-you-mean)", unit: "bytes", n: 100_000) { n in
            load("[{\"path\": \"/a\", \"" + String(repeating: "k", count: n) + "\": 1}]")
        },
        AdversarialShape(name: "binary plist, array of n distinct strings", unit: "objects", n: 10_000) { n in
            _ = try? PropertyListSourceParser().parse(binaryPlistOfStrings(n))
        },
        AdversarialShape(name: "binary plist bomb: n chains of 30 arrays each holding the previous twice (2^30 values each; refused at the bound)", unit: "chains", n: 10) { n in
            _ = try? PropertyListSourceParser().parse(binaryPlistBomb(chains: n))
        },
        AdversarialShape(name: "XML plist with n `<integer>` elements", unit: "elements", n: 10_000) { n in
            let body = String(repeating: "<integer>0x1F</integer>", count: n)
            _ = try? PropertyListSourceParser().parse(Data(("<plist><array>" + body + "</array></plist>").utf8))
        },
    ]
}

/// Writes a bplist00 file: objects given encoded, references of `refSize` bytes, offsets of 4.
func binaryPlist(_ objects: [[UInt8]], top: Int, refSize: Int) -> Data {
    func be(_ v: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: v >> (8 * (size - 1 - $0))) } }
    var out = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects { offsets.append(out.count); out += object }
    let table = out.count
    for offset in offsets { out += be(offset, 4) }
    out += [0, 0, 0, 0, 0, 0, 4, UInt8(refSize)] + be(objects.count, 8) + be(top, 8) + be(table, 8)
    return Data(out)
}

func binaryPlistOfStrings(_ n: Int) -> Data {
    var objects: [[UInt8]] = []
    for i in 0..<n {
        let s = Array("s\(i)".utf8)
        objects.append([0x50 | UInt8(s.count)] + s)
    }
    var array: [UInt8] = [0xAF, 0x13]
    for k in 0..<8 { array.append(UInt8(truncatingIfNeeded: n >> (8 * (7 - k)))) }
    for i in 0..<n { array += [UInt8(truncatingIfNeeded: i >> 16), UInt8(truncatingIfNeeded: i >> 8), UInt8(truncatingIfNeeded: i)] }
    objects.append(array)
    return binaryPlist(objects, top: n, refSize: 3)
}

/// `chains` independent chains of 30 arrays, each holding the previous twice, under one root array.
func binaryPlistBomb(chains: Int) -> Data {
    var objects: [[UInt8]] = [[0x51, UInt8(ascii: "x")]]
    var tops: [Int] = []
    for _ in 0..<chains {
        var previous = 0
        for _ in 0..<30 {
            let hi = UInt8(truncatingIfNeeded: previous >> 8), lo = UInt8(truncatingIfNeeded: previous)
            objects.append([0xA2, hi, lo, hi, lo])
            previous = objects.count - 1
        }
        tops.append(previous)
    }
    var root: [UInt8] = [0xAF, 0x13]
    for k in 0..<8 { root.append(UInt8(truncatingIfNeeded: tops.count >> (8 * (7 - k)))) }
    for top in tops { root += [UInt8(truncatingIfNeeded: top >> 8), UInt8(truncatingIfNeeded: top)] }
    objects.append(root)
    return binaryPlist(objects, top: objects.count - 1, refSize: 2)
}

func runAdversarialReaderBenchmarks() {
    print("| input | n | time at n | time at 10n | ratio |")
    print("|---|---|---|---|---|")
    for shape in adversarialShapes() where adversarialShapeSelected(shape.name) {
        // Milliseconds of the process's CPU time, least of 5 (see `leastCPUSeconds`).
        func time(_ n: Int) -> Double { leastCPUSeconds(runs: 5) { shape.run(n) } * 1000 }
        let small = time(shape.n), large = time(shape.n * 10)
        print("| \(shape.name) | \(shape.n) \(shape.unit) | \(String(format: "%.1f", small)) ms | \(String(format: "%.1f", large)) ms | \(String(format: "%.1f", large / small))x |")
    }
}

/// `STUBBENCH_ONLY=TEXT` runs only the adversarial shapes whose name contains TEXT (for profiling one
/// shape under callgrind or perf).
func adversarialShapeSelected(_ name: String) -> Bool {
    guard let only = ProcessInfo.processInfo.environment["STUBBENCH_ONLY"], !only.isEmpty else { return true }
    return name.contains(only)
}
#endif
