/// Finds the operations a GraphQL document defines (their type and name), which is all that matching
/// needs of it: the full grammar, validation and the schema are the tools' business (StubKitGraphQL).
///
/// One pass over the bytes, without recursion, so a document of any size or nesting costs time in
/// proportion to its length and a fixed amount of stack. It follows the lexical grammar of the GraphQL
/// specification (October 2021, section 2.1): commas, white space and `#` comments are ignored; strings
/// and block strings are skipped whole, so braces and `#` inside them count for nothing; parentheses and
/// brackets nest, so an object value `{…}` in a variable's default is not taken for a selection set.
package struct GraphQLDocumentScanner {
    /// What a document defines at its top level.
    package struct Summary: Sendable, Hashable {
        /// The operations, in document order. An anonymous query (`{ … }` or `query { … }`) has no name.
        package var operations: [Definition] = []
        /// The names of the fragments the document defines.
        package var fragments: [String] = []
    }

    /// One operation of a document.
    package struct Definition: Sendable, Hashable {
        package var type: GraphQLOperationType
        package var name: String?
    }

    /// Why a document could not be read, with where (1-based line and column).
    package struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        package var message: String
        package var line: Int
        package var column: Int

        package var description: String { "\(message) at line \(line), column \(column)" }
    }

    private let bytes: [UInt8]
    private var i = 0

    private init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// The operations and fragments of `document`, or the first thing in it that is not GraphQL.
    package static func scan(_ document: String) -> Result<Summary, Problem> {
        var scanner = GraphQLDocumentScanner(document)
        do {
            return .success(try scanner.summary())
        } catch {
            return .failure(error)
        }
    }

    private enum Token: Equatable {
        case name(String)
        case open(UInt8)
        case close(UInt8)
        case other
    }

    private mutating func summary() throws(Problem) -> Summary {
        var summary = Summary()
        while let (token, start) = try next() {
            switch token {
            case .open(UInt8(ascii: "{")):
                summary.operations.append(Definition(type: .query, name: nil))
                try skipGroup(opened: UInt8(ascii: "{"), at: start)
            case .name(let word):
                if let type = GraphQLOperationType(rawValue: word) {
                    let name = try definitionBody()
                    summary.operations.append(Definition(type: type, name: name))
                } else if word == "fragment" {
                    guard case .name(let name)? = try definitionHead() else { throw problem("a fragment without a name", at: start) }
                    summary.fragments.append(name)
                } else {
                    throw problem("'\(word)' does not start an operation or a fragment (a document holds query, mutation, subscription and fragment definitions)", at: start)
                }
            default:
                throw problem("expected an operation or a fragment", at: start)
            }
        }
        return summary
    }

    /// After `query`, `mutation` or `subscription`: the name if there is one, then the rest of the
    /// definition up to and including its selection set.
    private mutating func definitionBody() throws(Problem) -> String? {
        let first = try definitionHead()
        if case .name(let name)? = first { return name }
        return nil
    }

    /// Reads the token after a definition's keyword and skips to the end of its selection set.
    /// Returns that first token (the definition's name, when it is a name).
    private mutating func definitionHead() throws(Problem) -> Token? {
        let keywordEnd = i
        var first: Token? = nil
        while let (token, start) = try next() {
            if first == nil { first = token }
            switch token {
            case .open(UInt8(ascii: "{")):
                try skipGroup(opened: UInt8(ascii: "{"), at: start)
                return first
            case .open(let opener):
                try skipGroup(opened: opener, at: start)
            case .close(let byte):
                throw problem("an unmatched '\(Character(Unicode.Scalar(byte)))'", at: start)
            default:
                continue
            }
        }
        throw problem("a definition without a selection set", at: keywordEnd)
    }

    /// Skips to the bracket that closes the one opened at `start`, counting every kind of bracket on
    /// one stack (an array, so nesting costs heap, not stack).
    private mutating func skipGroup(opened: UInt8, at start: Int) throws(Problem) {
        var open: [(byte: UInt8, at: Int)] = [(opened, start)]
        while let (token, at) = try next() {
            switch token {
            case .open(let byte):
                open.append((byte, at))
            case .close(let byte):
                guard let last = open.popLast(), Self.closer(of: last.byte) == byte else {
                    throw problem("an unmatched '\(Character(Unicode.Scalar(byte)))'", at: at)
                }
                if open.isEmpty { return }
            default:
                continue
            }
        }
        let last = open.last!
        throw problem("'\(Character(Unicode.Scalar(last.byte)))' is never closed", at: last.at)
    }

    private static func closer(of opener: UInt8) -> UInt8 {
        switch opener {
        case UInt8(ascii: "{"): UInt8(ascii: "}")
        case UInt8(ascii: "("): UInt8(ascii: ")")
        default: UInt8(ascii: "]")
        }
    }

    /// The next token and where it starts, or `nil` at the end. Strings, numbers and punctuation other
    /// than brackets are `.other`.
    private mutating func next() throws(Problem) -> (Token, Int)? {
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ","):
                i += 1
            case 0xEF where i + 2 < bytes.count && bytes[i + 1] == 0xBB && bytes[i + 2] == 0xBF:
                i += 3 // a byte order mark
            case UInt8(ascii: "#"):
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n"), bytes[i] != UInt8(ascii: "\r") { i += 1 }
            case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "["):
                i += 1
                return (.open(byte), i - 1)
            case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"):
                i += 1
                return (.close(byte), i - 1)
            case UInt8(ascii: "\""):
                let start = i
                try skipString()
                return (.other, start)
            case UInt8(ascii: "_"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                let start = i
                while i < bytes.count, Self.isNameContinue(bytes[i]) { i += 1 }
                return (.name(String(decoding: bytes[start..<i], as: UTF8.self)), start)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = i
                i += 1
                while i < bytes.count, Self.isNameContinue(bytes[i]) || bytes[i] == UInt8(ascii: ".")
                        || bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                return (.other, start)
            case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: ":"), UInt8(ascii: "="),
                 UInt8(ascii: "@"), UInt8(ascii: "|"), UInt8(ascii: "."):
                i += 1
                return (.other, i - 1)
            default:
                throw problem("an unexpected character '\(String(decoding: [byte], as: UTF8.self))'", at: i)
            }
        }
        return nil
    }

    private static func isNameContinue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "_"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }

    /// Skips a string (`"…"`, escapes honoured, on one line) or a block string (`"""…"""`, where only
    /// `\"""` is an escape).
    private mutating func skipString() throws(Problem) {
        let start = i
        let quote = UInt8(ascii: "\"")
        if i + 2 < bytes.count, bytes[i + 1] == quote, bytes[i + 2] == quote {
            i += 3
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "\\"), i + 3 < bytes.count, bytes[i + 1] == quote, bytes[i + 2] == quote, bytes[i + 3] == quote {
                    i += 4
                } else if bytes[i] == quote, i + 2 < bytes.count, bytes[i + 1] == quote, bytes[i + 2] == quote {
                    i += 3
                    return
                } else {
                    i += 1
                }
            }
            throw problem("a block string that is never closed", at: start)
        }
        i += 1
        while i < bytes.count {
            switch bytes[i] {
            case quote:
                i += 1
                return
            case UInt8(ascii: "\\"):
                i += 2
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw problem("a string that is never closed", at: start)
            default:
                i += 1
            }
        }
        throw problem("a string that is never closed", at: start)
    }

    private func problem(_ message: String, at offset: Int) -> Problem {
        var line = 1
        var lineStart = 0
        var j = 0
        while j < offset && j < bytes.count {
            if bytes[j] == UInt8(ascii: "\n") || (bytes[j] == UInt8(ascii: "\r") && (j + 1 >= bytes.count || bytes[j + 1] != UInt8(ascii: "\n"))) {
                line += 1
                lineStart = j + 1
            }
            j += 1
        }
        return Problem(message: message, line: line, column: offset - lineStart + 1)
    }
}
