import Foundation

/// A 1-based line and column in a text file.
///
/// Columns count Unicode scalars, so a position points at the same character an editor shows.
package struct SourcePosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var line: Int
    package var column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    package static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    package var description: String { "\(line):\(column)" }
}

/// A value read from a rules file, with where it came from.
///
/// JSON and XML property lists both decode into this one shape, so the rule decoder, the engine and the
/// linter see the same tree. Dictionaries keep their keys in file order, duplicates included, so a
/// repeated key can be reported instead of silently winning.
package struct SourceValue: Sendable {
    package enum Kind: Sendable {
        case string(String)
        case integer(Int)
        case real(Double)
        case bool(Bool)
        case null
        case date(Date)
        case data(Data)
        case array([SourceValue])
        case dictionary([Entry])
    }

    /// One key of a dictionary, with the position of the key itself.
    package struct Entry: Sendable {
        package var key: String
        package var keyPosition: SourcePosition?
        package var value: SourceValue

        package init(key: String, keyPosition: SourcePosition?, value: SourceValue) {
            self.key = key
            self.keyPosition = keyPosition
            self.value = value
        }
    }

    package var kind: Kind
    /// Where the value starts; `nil` for formats without positions (binary property lists).
    package var position: SourcePosition?
    /// An `.array` read from a binary property list set: unordered, so rules never accept it where
    /// they expect a list (``arrayValue`` is `nil` for it), and messages call it "a set".
    package var isSet = false

    package init(_ kind: Kind, at position: SourcePosition? = nil) {
        self.kind = kind
        self.position = position
    }

    /// The type's name as a message shows it: "a string", "an array".
    package var typeDescription: String {
        switch kind {
        case .string: return "a string"
        case .integer: return "an integer"
        case .real: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        case .date: return "a date"
        case .data: return "data"
        case .array: return isSet ? "a set" : "an array"
        case .dictionary(let entries):
            // How binary property lists' UIDs read (NSKeyedArchiver output mistaken for a rules file).
            if entries.count == 1, entries[0].key == "CF$UID" { return "a UID (a keyed-archiver reference)" }
            return "a dictionary"
        }
    }

    package var stringValue: String? {
        if case .string(let s) = kind { return s }
        return nil
    }

    package var arrayValue: [SourceValue]? {
        if case .array(let a) = kind, !isSet { return a }
        return nil
    }

    package var dictionaryValue: [Entry]? {
        if case .dictionary(let d) = kind { return d }
        return nil
    }

    /// The value as a Foundation object tree (for JSON serialization of inline bodies).
    package var foundationObject: Any {
        switch kind {
        case .string(let s): return s
        case .integer(let i): return i
        case .real(let d): return d
        case .bool(let b): return b
        case .null: return NSNull()
        case .date(let d): return ISO8601DateFormatter().string(from: d)
        case .data(let d): return d.base64EncodedString()
        case .array(let a): return a.map(\.foundationObject)
        case .dictionary(let entries):
            var result: [String: Any] = [:]
            for entry in entries { result[entry.key] = entry.value.foundationObject }
            return result
        }
    }

    /// Serializes the value as JSON, keys in file order (deterministic, and what the author wrote).
    package func jsonData() -> Data {
        var out = ""
        appendJSON(to: &out)
        return Data(out.utf8)
    }

    private func appendJSON(to out: inout String) {
        switch kind {
        case .string(let s): Self.appendQuoted(s, to: &out)
        case .integer(let i): out += String(i)
        case .real(let d): out += d.isFinite ? String(d) : "null"
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .date(let d): Self.appendQuoted(ISO8601DateFormatter().string(from: d), to: &out)
        case .data(let d): Self.appendQuoted(d.base64EncodedString(), to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.appendJSON(to: &out)
            }
            out += "]"
        case .dictionary(let entries):
            out += "{"
            for (i, entry) in entries.enumerated() {
                if i > 0 { out += "," }
                Self.appendQuoted(entry.key, to: &out)
                out += ":"
                entry.value.appendJSON(to: &out)
            }
            out += "}"
        }
    }

    static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

/// A syntax error in a rules file, at the position the parser stopped.
package struct SourceSyntaxError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var position: SourcePosition?

    package init(_ message: String, at position: SourcePosition?) {
        self.message = message
        self.position = position
    }

    package var description: String {
        position.map { "\($0): \(message)" } ?? message
    }
}
