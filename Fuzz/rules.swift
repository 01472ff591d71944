// libFuzzer target: the whole path from bytes to rules: the parser chosen as the loader chooses it,
// then the rules decoder with every lint option on. Response files resolve in an empty folder.
import Foundation

private let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("stubkit-fuzz-rules-empty")

func fuzzRulesDecoder(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let isPlist = data.first == UInt8(ascii: "<") || data.starts(with: Array("bplist".utf8))
    guard let root = try? BundleLoader.parse(data, fileName: isPlist ? "stubsRules.plist" : "stubsRules.json") else { return 0 }
    var decoder = RulesDecoder(file: "stubsRules", folder: folder, options: .lint)
    let rules = decoder.decode(root)
    // A rule is returned only when its part of the file had no error.
    if decoder.diagnostics.isEmpty { precondition(rules.count <= count, "more rules than bytes") }
    return 0
}
