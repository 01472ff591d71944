// libFuzzer target: the XML property list reader (and the encoding checks before it).
import Foundation

func fuzzXMLPropertyListReader(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    // Binary files go to the binary reader, which has its own target.
    if data.starts(with: Array("bplist".utf8)) { return 0 }
    _ = try? PropertyListSourceParser().parse(data)
    return 0
}
