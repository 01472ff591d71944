import Foundation

/// One request to perform: `METHOD URL [--data BODY] [--header 'Name: value']…`.
struct RequestSpec {
    var method: String
    var url: URL
    var body: Data?
    var headers: [(String, String)] = []
}

/// A request line or command line that cannot be read; the message quotes the offending word.
struct UsageError: Error {
    var message: String
}

/// Reads requests from words: each `METHOD URL`, then its `--data BODY` and `--header 'Name: value'`.
func requestSpecs(from words: [String]) throws(UsageError) -> [RequestSpec] {
    var specs: [RequestSpec] = []
    var words = words[...]
    while let word = words.popFirst() {
        switch word {
        case "--data":
            guard !specs.isEmpty, let value = words.popFirst() else { throw UsageError(message: "--data follows METHOD URL and takes a body") }
            specs[specs.count - 1].body = Data(value.utf8)
        case "--header":
            guard !specs.isEmpty, let value = words.popFirst(), let colon = value.firstIndex(of: ":") else {
                throw UsageError(message: "--header follows METHOD URL and takes 'Name: value'")
            }
            let name = value[..<colon].trimmingCharacters(in: .whitespaces)
            let headerValue = value[value.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            specs[specs.count - 1].headers.append((name, headerValue))
        default:
            guard let urlText = words.first, let url = URL(string: urlText), url.scheme != nil else {
                throw UsageError(message: "expected METHOD URL, got '\(([word] + words.prefix(1)).joined(separator: " "))'")
            }
            words.removeFirst()
            specs.append(RequestSpec(method: word.uppercased(), url: url))
        }
    }
    return specs
}

/// Splits a line as a POSIX shell splits words: blanks separate; '…' keeps everything literally;
/// "…" keeps everything but `\"` and `\\`; a backslash outside quotes escapes the next character.
func shellWords(_ line: String) throws(UsageError) -> [String] {
    var words: [String] = []
    var current = ""
    var inWord = false
    var quote: Character?
    var iterator = line.makeIterator()
    while let character = iterator.next() {
        switch (quote, character) {
        case (nil, " "), (nil, "\t"):
            if inWord { words.append(current); current = ""; inWord = false }
        case (nil, "'"), (nil, "\""):
            quote = character
            inWord = true
        case ("'", "'"), ("\"", "\""):
            quote = nil
        case (nil, "\\"):
            guard let next = iterator.next() else { throw UsageError(message: "a line ends in a lone '\\'") }
            current.append(next)
            inWord = true
        case ("\"", "\\"):
            guard let next = iterator.next() else { throw UsageError(message: "a line ends in a lone '\\'") }
            if next != "\"" && next != "\\" { current.append("\\") }
            current.append(next)
        default:
            current.append(character)
            inWord = true
        }
    }
    if let quote { throw UsageError(message: "unclosed \(quote) in '\(line)'") }
    if inWord { words.append(current) }
    return words
}
