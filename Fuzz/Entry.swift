// The one libFuzzer entry point: every target is compiled into one binary (Tools/scripts/fuzz builds
// it once, with the StubKit sources in the same module), and STUBKIT_FUZZ_TARGET picks the target.
import Foundation

/// The targets by name: each takes libFuzzer's bytes and returns 0, or stops the process on a finding.
let fuzzTargets: [String: @Sendable (UnsafePointer<UInt8>, Int) -> CInt] = [
    "json": fuzzJSONReader,
    "xmlplist": fuzzXMLPropertyListReader,
    "bplist": fuzzBinaryPropertyListReader,
    "rules": fuzzRulesDecoder,
    "regex": fuzzRegex,
    "pathpattern": fuzzPathPattern,
    "template": fuzzTemplate,
]

let selectedFuzzTarget: @Sendable (UnsafePointer<UInt8>, Int) -> CInt = {
    let name = ProcessInfo.processInfo.environment["STUBKIT_FUZZ_TARGET"] ?? ""
    guard let target = fuzzTargets[name] else {
        FileHandle.standardError.write(Data("STUBKIT_FUZZ_TARGET must be one of: \(fuzzTargets.keys.sorted().joined(separator: ", ")) (got '\(name)')\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    selectedFuzzTarget(start, count)
}
