import Foundation

/// Values of the types a rules file gives, coerced and checked: strings, integers, status codes,
/// delays, host names and header dictionaries. Each reports what is wrong and returns `nil`.
extension RulesDecoder {
    mutating func string(_ value: SourceValue, keyPath: @autoclosure () -> String) -> String? {
        if case .string(let s) = value.kind { return s }
        wrongType(value, keyPath: keyPath(), expected: "a string")
        return nil
    }

    mutating func integer(_ value: SourceValue, keyPath: @autoclosure () -> String) -> Int? {
        switch value.kind {
        case .integer(let i): return i
        case .real(let d) where d == d.rounded() && abs(d) < 1e15: return Int(d)
        default:
            wrongType(value, keyPath: keyPath(), expected: "an integer")
            return nil
        }
    }

    mutating func status(_ value: SourceValue, keyPath: @autoclosure () -> String) -> Int? {
        let status: Int
        switch value.kind {
        case .integer(let i): status = i
        case .string(let s):
            guard let i = Int(s.trimmingCharacters(in: .whitespaces)) else {
                report(.invalidStatus, at: value.position, keyPath: keyPath(), "status '\(s)' is not a number", fix: "write an HTTP status code such as 200")
                return nil
            }
            status = i
        default:
            wrongType(value, keyPath: keyPath(), expected: "an integer such as 200")
            return nil
        }
        guard (100...599).contains(status) else {
            report(.invalidStatus, at: value.position, keyPath: keyPath(), "status \(status) is not an HTTP status code", fix: "use a code from 100 to 599")
            return nil
        }
        return status
    }

    /// The longest delay (and random delay bound) a rule may ask for. Longer ones are typos (milliseconds
    /// written as seconds) or attempts to hang the app; a test waiting an hour has failed anyway.
    static let maximumDelay: TimeInterval = 3600

    mutating func delay(_ value: SourceValue, keyPath: @autoclosure () -> String) -> TimeInterval? {
        let seconds: Double
        switch value.kind {
        case .integer(let i): seconds = Double(i)
        case .real(let d): seconds = d
        default:
            wrongType(value, keyPath: keyPath(), expected: "a number of seconds")
            return nil
        }
        guard seconds >= 0, seconds.isFinite else {
            report(.negativeDelay, at: value.position, keyPath: keyPath(), seconds.isFinite ? "delay \(seconds) is negative" : "delay \(seconds) is not a finite number", fix: "use 0 or more seconds")
            return nil
        }
        guard seconds <= Self.maximumDelay else {
            report(.delayTooLong, at: value.position, keyPath: keyPath(), "a delay of \(seconds) seconds is longer than the maximum of \(Int(Self.maximumDelay)) seconds (one hour)",
                   fix: "use a shorter delay; to make a request never answer, use \"error\": \"timedOut\"")
            return nil
        }
        return seconds
    }

    mutating func host(_ value: SourceValue, keyPath: @autoclosure () -> String) -> String? {
        guard let text = string(value, keyPath: keyPath()) else { return nil }
        if text.isEmpty || text.contains("/") || text.contains(" ") {
            report(.invalidValue, at: value.position, keyPath: keyPath(), "'\(text)' is not a host name",
                   fix: "write the host alone, without scheme or path, such as api.example.com")
            return nil
        }
        return text.lowercased()
    }

    mutating func scalarText(_ value: SourceValue, keyPath: @autoclosure () -> String) -> String? {
        switch value.kind {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .bool(let b): return b ? "true" : "false"
        default:
            wrongType(value, keyPath: keyPath(), expected: "a string")
            return nil
        }
    }

    mutating func stringPairs(_ value: SourceValue, keyPath: @autoclosure () -> String) -> [(name: String, value: String)]? {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath(), expected: "a dictionary of names to strings")
            return nil
        }
        var seen: SeenKeys = []
        var pairs: [(name: String, value: String)] = []
        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath(), seen: &seen) else { continue }
            // Only headers come through here (response, bundle-wide and bundle request headers).
            if let text = scalarText(entry.value, keyPath: "\(keyPath()).\(entry.key)"),
               validHeader(entry, value: text, keyPath: "\(keyPath()).\(entry.key)") {
                pairs.append((entry.key, text))
            }
        }
        return pairs
    }

    /// A header name must be an HTTP token and a value must hold no line break or NUL: served over
    /// HTTP, a CR or LF would end the header and start another (header injection).
    mutating func validHeader(_ entry: SourceValue.Entry, value: String, keyPath: @autoclosure () -> String) -> Bool {
        let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)
        let nameIsToken = !entry.key.isEmpty && entry.key.utf8.allSatisfy { b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || tokenSymbols.contains(b)
        }
        if !nameIsToken {
            report(.invalidHeader, at: entry.keyPosition, keyPath: keyPath(), "header name '\(Self.escaped(entry.key))' is not a valid HTTP header name",
                   fix: "use letters, digits and - only, such as X-Request-Id")
            return false
        }
        if let bad = value.unicodeScalars.first(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            report(.invalidHeader, at: entry.value.position, keyPath: keyPath(),
                   "the value of header '\(entry.key)' contains \(bad == "\0" ? "a NUL character" : "a line break (\(bad == "\r" ? "CR" : "LF"))"), which would end the header and inject another",
                   fix: "put the value on one line; for several values, separate them with commas")
            return false
        }
        return true
    }

    /// Text for a message, with control characters shown as escapes.
    static func escaped(_ text: String) -> String {
        var out = ""
        SourceValue.appendQuoted(String(text.prefix(200)), to: &out)
        return String(out.dropFirst().dropLast())
    }

    mutating func stringDictionary(_ value: SourceValue, keyPath: @autoclosure () -> String) -> [String: String]? {
        guard let pairs = stringPairs(value, keyPath: keyPath()) else { return nil }
        return Dictionary(pairs, uniquingKeysWith: { _, last in last })
    }
}
