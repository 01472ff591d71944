// libFuzzer target: the binary property list reader. Inputs lacking the bplist00 header get it,
// so the fuzzer spends its time on trailers, offsets and references rather than on the magic.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBinaryPropertyListReader(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var bytes = Array(UnsafeBufferPointer(start: start, count: count))
    if !bytes.starts(with: Array("bplist00".utf8)) { bytes = Array("bplist00".utf8) + bytes }
    var parser = BinaryPropertyListParser(bytes)
    guard let value = try? parser.parse() else { return 0 }
    // Whatever is read stays within the bound the reader promises.
    precondition(expandedSize(value) <= BinaryPropertyListParser.maximumExpandedSize(forFileOfSize: bytes.count), "expanded past the bound")
    return 0
}

private func expandedSize(_ value: SourceValue) -> Int {
    switch value.kind {
    case .array(let items): return 1 + items.reduce(0) { $0 + expandedSize($1) }
    case .dictionary(let entries): return 1 + entries.reduce(0) { $0 + 1 + $1.key.utf8.count + expandedSize($1.value) }
    case .string(let s): return 1 + s.utf8.count
    case .data(let d): return 1 + d.count
    default: return 1
    }
}
