import Foundation

/// Feature flags or automation flags a UI test hands the app, as typed values.
///
/// A test runner passes each kind as one launch argument (or environment variable) holding JSON:
///
/// ```text
/// STUB_FEATURE_FLAGS={"version":1,"flags":{"newCheckout":true,"greeting":"Grüß \"dich\""}}
/// STUB_AUTOMATION_FLAGS={"version":1,"flags":{"simulateUserAlreadyLoggedIn":true,"retries":3}}
/// ```
///
/// Version 1 of the encoding: a JSON object with `version` (1) and `flags`, an object whose values are
/// JSON booleans, numbers, strings, arrays or objects of these (no `null`). A number written without a
/// fraction or exponent is an ``FlagValue/int(_:)``, any other a ``FlagValue/double(_:)`` (so a whole
/// Double such as 2.0 comes back as `.int(2)`: read numbers with ``double(_:)``, which takes both). Apple's
/// `-NAME value` form is read as well. JSON rather than a property-list description string, so values
/// with spaces, quotes, newlines or non-ASCII characters arrive unchanged.
public struct LaunchFlags: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// Which of the two arrays a flag belongs to, and the argument that carries it.
    public enum Kind: String, Sendable, CaseIterable {
        /// Toggles of the product (`newCheckout`): what a configuration stack reads.
        case feature = "STUB_FEATURE_FLAGS"
        /// Shortcuts for tests only (`simulateUserAlreadyLoggedIn`, `skipOnboarding`).
        case automation = "STUB_AUTOMATION_FLAGS"

        /// The launch argument or environment variable name.
        package var argumentName: String { rawValue }
    }

    /// The version of the encoding this library writes and reads.
    package static let encodingVersion = 1

    /// Every flag by name.
    public var values: [String: FlagValue]

    /// Flags from a dictionary of typed values.
    public init(_ values: [String: FlagValue] = [:]) {
        self.values = values
    }

    /// Flags from a literal: `["newCheckout": true, "retries": 3]`.
    public init(dictionaryLiteral elements: (String, FlagValue)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// Whether no flag is set.
    public var isEmpty: Bool { values.isEmpty }

    /// The flag with this name, or `nil`; setting `nil` removes it.
    public subscript(name: String) -> FlagValue? {
        get { values[name] }
        set { values[name] = newValue }
    }

    /// The flag as a Bool, or `nil` when absent or of another type.
    public func bool(_ name: String) -> Bool? { values[name]?.boolValue }
    /// The flag as an Int (a number without a fraction), or `nil`.
    public func int(_ name: String) -> Int? { values[name]?.intValue }
    /// The flag as a Double (any number), or `nil`.
    public func double(_ name: String) -> Double? { values[name]?.doubleValue }
    /// The flag as a String, or `nil` when absent or of another type.
    public func string(_ name: String) -> String? { values[name]?.stringValue }
    /// The flag as an array, or `nil` when absent or of another type.
    public func array(_ name: String) -> [FlagValue]? { values[name]?.arrayValue }
    /// The flag as a dictionary, or `nil` when absent or of another type.
    public func dictionary(_ name: String) -> [String: FlagValue]? { values[name]?.dictionaryValue }

    // MARK: Encoding

    private struct Envelope: Codable {
        var version: Int
        var flags: [String: FlagValue]

        init(version: Int, flags: [String: FlagValue]) {
            self.version = version
            self.flags = flags
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // JSONDecoder reports 1.5 for an Int as "not valid JSON"; say what is wrong instead.
            if let number = try? container.decode(Double.self, forKey: .version), Int(exactly: number) == nil {
                throw DecodingError.dataCorruptedError(forKey: .version, in: container,
                                                       debugDescription: "the version is a whole number such as 1, got \(number)")
            }
            version = try container.decode(Int.self, forKey: .version)
            flags = try container.decode([String: FlagValue].self, forKey: .flags)
        }
    }

    /// The argument's value: version-1 JSON with sorted keys, so the same flags give the same text.
    ///
    /// - Throws: ``StubKitError`` naming the flag when a Double is NaN or infinite (JSON has no form
    ///   for them, and the app could not read them back).
    package func encoded() throws(StubKitError) -> String {
        try encoded(as: nil)
    }

    /// ``encoded()``, whose error starts with the argument name of `kind`.
    package func encoded(as kind: Kind?) throws(StubKitError) -> String {
        if let path = Self.nonFinitePath(in: values) {
            throw .invalidLaunchSetting("\(kind.map { "\($0.argumentName): " } ?? "")\(path.description): \(path.value) cannot be passed to the app: JSON has no NaN or infinity; use a finite number or a string")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(Envelope(version: Self.encodingVersion, flags: values)), as: UTF8.self)
        } catch {
            throw .invalidLaunchSetting("flags cannot be written as JSON: \(error)")
        }
    }

    /// The first NaN or infinite Double, in key order, with where it sits.
    private static func nonFinitePath(in values: [String: FlagValue]) -> (description: String, value: Double)? {
        func search(_ value: FlagValue, _ path: [any CodingKey]) -> ([any CodingKey], Double)? {
            switch value {
            case .double(let number) where !number.isFinite: return (path, number)
            case .array(let items):
                for (index, item) in items.enumerated() {
                    if let found = search(item, path + [FlagKey(intValue: index)]) { return found }
                }
            case .dictionary(let entries):
                for key in entries.keys.sorted() {
                    if let found = search(entries[key]!, path + [FlagKey(stringValue: key)]) { return found }
                }
            default: break
            }
            return nil
        }
        guard let (path, number) = search(.dictionary(values), [FlagKey(stringValue: "flags")]) else { return nil }
        return (keyPath(path), number)
    }

    /// A coding path as a reader can follow it: `flags.banner.weights[1]`, with keys that are not
    /// identifiers quoted (`flags["a.b"].c`), so a dot inside a key is not read as a level.
    static func keyPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else if key.stringValue.range(of: "^[A-Za-z_][A-Za-z0-9_]*$", options: .regularExpression) != nil {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            } else {
                let quoted = (try? JSONEncoder().encode(key.stringValue)).map { String(decoding: $0, as: UTF8.self) } ?? key.stringValue
                text += "[\(quoted)]"
            }
        }
        return text
    }

    /// Reads an encoded value; `source` names the argument or variable in the error.
    package init(decoding text: String, source: String) throws(StubKitError) {
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: Data(text.utf8))
        } catch {
            throw .invalidLaunchSetting("\(source): not version-\(Self.encodingVersion) flags JSON such as {\"version\":1,\"flags\":{\"name\":true}} (\(Self.reason(error))); got '\(text.prefix(80))'")
        }
        guard envelope.version == Self.encodingVersion else {
            throw .invalidLaunchSetting("\(source): flags encoding version \(envelope.version); this StubKit reads version \(Self.encodingVersion)")
        }
        self.init(envelope.flags)
    }

    private static func reason(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = keyPath(context.codingPath)
            let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String ?? context.debugDescription
            return path.isEmpty ? detail : "at \(path): \(detail)"
        default:
            return error.localizedDescription
        }
    }
}

/// A key of a flag's coding path, for ``LaunchFlags/keyPath(_:)``.
private struct FlagKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) { self.stringValue = "\(intValue)"; self.intValue = intValue }
}

/// One flag's value: a Bool, an Int, a Double, a String, or an array or dictionary of these.
public enum FlagValue: Sendable, Hashable, Codable, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
                       ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// A JSON `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent (a whole `Double` sent as a flag arrives as this).
    case int(Int)
    /// A number written with a fraction or exponent; finite only (JSON has no NaN or infinity).
    case double(Double)
    /// A JSON string.
    case string(String)
    /// A JSON array of flag values.
    case array([FlagValue])
    /// A JSON object of flag values, keyed by name.
    case dictionary([String: FlagValue])

    /// `true` or `false` written as a flag value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A whole number written as a flag value.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A number with a fraction written as a flag value.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string written as a flag value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal written as a flag value.
    public init(arrayLiteral elements: FlagValue...) { self = .array(elements) }
    /// A dictionary literal written as a flag value.
    public init(dictionaryLiteral elements: (String, FlagValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// The value as a Bool, or `nil` for another type.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The value as an Int (a number without a fraction), or `nil`.
    public var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value): value.rounded() == value ? Int(exactly: value) : nil
        default: nil
        }
    }
    /// The value as a Double (any number), or `nil`.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
    /// The value as a String, or `nil` for another type.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The value as an array, or `nil` for another type.
    public var arrayValue: [FlagValue]? { if case .array(let value) = self { value } else { nil } }
    /// The value as a dictionary, or `nil` for another type.
    public var dictionaryValue: [String: FlagValue]? { if case .dictionary(let value) = self { value } else { nil } }

    /// Reads a JSON boolean, number, string, array or object; `null` is an error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "null is not a value; leave the flag out instead")
        }
        // Bool before numbers: JSONDecoder never reads `true` as 1, nor 1 as `true`.
        if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try Self.decodeIfShaped([FlagValue].self, in: container) { self = .array(value) }
        else if let value = try Self.decodeIfShaped([String: FlagValue].self, in: container) { self = .dictionary(value) }
        else {
            do {
                _ = try container.decode(Double.self)
            } catch is DecodingError {
            } catch {
                // JSONDecoder's own error for a number no Swift type holds (1e400), which it would
                // otherwise report as "not valid JSON".
                let text = String(describing: error)
                let number = text.range(of: #"parsed: ""#).map { text[$0.upperBound...].prefix { $0 != "\"" } }
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(number.map(String.init) ?? "the number") is out of the range of a Double")
            }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a flag is a boolean, number, string, array or object")
        }
    }

    /// An array or object, or `nil` when the value has another shape; an error inside one (a null
    /// three levels down) is thrown with its own path rather than hidden behind "not a flag".
    private static func decodeIfShaped<T: Decodable>(_ type: T.Type, in container: any SingleValueDecodingContainer) throws -> T? {
        do {
            return try container.decode(type)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.count == container.codingPath.count {
            return nil
        }
    }

    /// Writes the value as its JSON form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .dictionary(let value): try container.encode(value)
        }
    }
}
