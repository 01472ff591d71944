// libFuzzer target: the binary property list reader. Inputs lacking the bplist00 header get it,
// so the fuzzer spends its time on trailers, offsets and references rather than on the magic.
import Foundation

func fuzzBinaryPropertyListReader(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var bytes = Array(UnsafeBufferPointer(start: start, count: count))
    if !bytes.starts(with: Array("bplist00".utf8)) { bytes = Array("bplist00".utf8) + bytes }
    var parser = BinaryPropertyListParser(bytes)
    guard let value = try? parser.parse() else { return 0 }
    // Whatever is read stays within the bound the reader promises.
    precondition(BinaryPropertyListParser.expandedSize(of: value) <= BinaryPropertyListParser.maximumExpandedSize(forFileOfSize: bytes.count), "expanded past the bound")
    return 0
}
