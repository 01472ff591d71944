// libFuzzer entry for the linear-time regular expression engine, differential against
// NSRegularExpression: compiled with Sources/StubKit/**/*.swift by Tools/scripts/fuzz.
//
// Input: a pattern and a text separated by the first NUL byte. A pattern that NSRegularExpression
// refuses, or that lies outside the subset, is skipped; otherwise both engines must agree. The text
// is kept short so NSRegularExpression (the reference) finishes; when it still runs away under its
// budget the case is skipped, never counted as a disagreement.
import Foundation

func fuzzRegex(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let separator = bytes.firstIndex(of: 0) else { return 0 }
    let pattern = String(decoding: bytes[..<separator], as: UTF8.self)
    let text = String(decoding: bytes[(separator + 1)...].prefix(64), as: UTF8.self)
    guard pattern.unicodeScalars.count <= 64, let regex = try? RegexPattern(pattern), regex.isLinear else { return 0 }
    let expression = try! NSRegularExpression(pattern: pattern, options: [])
    let deadline = ContinuousClock.now.advanced(by: .milliseconds(200))
    var expected: Bool? = false
    expression.enumerateMatches(in: text, options: [.reportProgress], range: NSRange(text.startIndex..., in: text)) { result, _, stop in
        if result != nil {
            expected = true
            stop.pointee = true
        } else if ContinuousClock.now >= deadline {
            expected = nil
            stop.pointee = true
        }
    }
    guard let expected else { return 0 }
    let actual = regex.matches(text)
    if actual != expected {
        fatalError("linear engine says \(actual), NSRegularExpression \(expected): /\(pattern)/ on \(text.debugDescription)")
    }
    _ = regex.requiredLiterals
    return 0
}
