#if Tools
import Foundation
import StubKitDocuments

/// The formats `stubkit import` reads.
package enum ImportFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// HAR 1.2 from browsers, Charles, Proxyman, Fiddler, Insomnia, mitmproxy, Playwright, Polly.JS.
    case har
    /// WireMock mappings (`mappings/**/*.json`) with `__files/`.
    case wiremock
    /// Mocktail `.tail` files (OHHTTPStubs).
    case mocktail
    /// Cassettes: vcrpy (YAML, JSON), Ruby VCR, go-vcr, Betamax, OkReplay, DVR, Vinyl.
    case vcr

    package var description: String { rawValue }

    /// The format of a file, from its content (and `.tail` for Mocktail); `nil` when none fits.
    /// - Parameter yaml: the file parsed as YAML, when its name says YAML and it parsed.
    static func detect(_ data: Data, fileName: String, yaml: Any? = nil) -> ImportFormat? {
        if fileName.hasSuffix(".tail") { return .mocktail }
        if DocumentReader.looksLikeJSON(data) {
            guard let format = detectJSON(DocumentReader.withoutBOM(data)) else {
                // Unreadable JSON: a .har file is still a HAR, so its error names the problem.
                return fileName.lowercased().hasSuffix(".har") ? .har : nil
            }
            return format
        }
        if isYAML(fileName) {
            // Only cassettes are YAML: a file that does not parse is read as one, so its error names the line.
            guard let yaml else { return .vcr }
            return detect(yaml)
        }
        if fileName.lowercased().hasSuffix(".har") { return .har }
        return MocktailReader.looksLikeMocktail(data) ? .mocktail : nil
    }

    /// Whether the file's name says YAML.
    static func isYAML(_ fileName: String) -> Bool {
        fileName.hasSuffix(".yaml") || fileName.hasSuffix(".yml")
    }

    /// The format of a JSON document from its top-level keys, decoded without building a tree of it
    /// (a 10 MB HAR would cost ten times that as Foundation objects).
    private static func detectJSON(_ data: Data) -> ImportFormat? {
        struct Anything: Decodable { init(from decoder: any Decoder) throws {} }
        struct Object: Decodable {
            struct Log: Decodable { var entries: [Anything]? }
            var log: Log?
            var mappings: [Anything]?
            var request: [String: Anything]?
            var response: [String: Anything]?
            var interactions: [Anything]?
            var http_interactions: [Anything]?
        }
        struct Interaction: Decodable {
            var request: Anything?
            var response: Anything?
        }
        let decoder = JSONDecoder()
        if let object = try? decoder.decode(Object.self, from: data) {
            if object.log?.entries != nil { return .har }
            if object.mappings != nil || (object.request != nil && object.response != nil) { return .wiremock }
            if object.interactions != nil || object.http_interactions != nil { return .vcr }
            return nil
        }
        if let items = try? decoder.decode([Interaction].self, from: data), let first = items.first, first.request != nil, first.response != nil {
            return .vcr
        }
        return nil
    }

    /// The format of a parsed JSON or YAML document.
    static func detect(_ value: Any) -> ImportFormat? {
        let root = Node(value)
        if root["log"]["entries"].array != nil { return .har }
        if root["mappings"].array != nil { return .wiremock }
        if root["request"].object != nil && root["response"].object != nil { return .wiremock }
        if root["interactions"].array != nil || root["http_interactions"].array != nil { return .vcr }
        if let items = root.array, let first = items.first, first["request"].exists, first["response"].exists { return .vcr }
        return nil
    }
}
#endif
