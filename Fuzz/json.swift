// libFuzzer target: the JSON reader. Built by Tools/scripts/fuzz together with the StubKit sources
// (same module, so internal API is reachable); not part of the package, so no app links it.
import Foundation

func fuzzJSONReader(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    guard let value = try? JSONSourceParser().parse(data) else { return 0 }
    // What was read must write back as JSON that reads to the same text: no value is lost or invented.
    let written = value.jsonData()
    guard let again = try? JSONSourceParser().parse(written) else {
        fatalError("jsonData() wrote JSON the reader refuses: \(String(decoding: written.prefix(200), as: UTF8.self))")
    }
    precondition(again.jsonData() == written, "JSON round trip changed the value")
    return 0
}
