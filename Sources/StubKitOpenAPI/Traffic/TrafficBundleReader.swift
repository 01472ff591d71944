#if Tools
import Foundation
import StubKit

/// A bundle folder as traffic: each rule's request conditions as the request, its response as what came
/// back. Only a bundle written by record mode (`recordedAt`) holds a real backend's answers; a
/// hand-written bundle's responses are stubs, so only its requests are checked.
enum TrafficBundleReader {
    static func read(_ folder: URL, display: String, _ visit: (TrafficEntry) -> Void) throws(TrafficReader.ReadError) -> TrafficReader.Summary {
        var options = BundleLoader.Options.engine
        options.reportLegacyKeys = false
        let loaded = BundleLoader(options: options).load(folder: folder)
        let bundle = loaded.bundle
        guard let rulesFile = bundle.rulesFile else {
            throw TrafficReader.ReadError(description: "\(display): a folder with no rules file; pass a HAR file, a live journal or a bundle folder")
        }
        let tree = (try? Data(contentsOf: rulesFile)).flatMap { try? BundleLoader.parse($0, fileName: rulesFile.lastPathComponent) }
        let recorded = tree?["recordedAt"] != nil
        let file = (display as NSString).appendingPathComponent(rulesFile.lastPathComponent)
        var summary = TrafficReader.Summary(kind: .bundle)
        for (i, rule) in bundle.rules.enumerated() {
            let source = TrafficEntry.Source(file: file, position: rule.source.position, keyPath: rule.source.keyPath)
            let conditions = rule.request
            guard let components = conditions.path?.components, components.allSatisfy({ if case .literal = $0 { true } else { false } }) else {
                summary.problems.append(Diagnostic(.trafficNotChecked, file: file, position: source.position, keyPath: source.keyPath,
                                                   message: "\(rule.displayName): the rule's path is a pattern, not a request that was sent; not checked"))
                continue
            }
            var url = URLComponents()
            url.scheme = conditions.scheme ?? "https"
            url.host = conditions.host ?? "host.invalid"
            url.percentEncodedPath = "/" + components.map { component -> String in
                guard case .literal(let text) = component else { return "" }
                return text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? text
            }.joined(separator: "/")
            let query = conditions.query.sorted { $0.key < $1.key }.compactMap { item -> URLQueryItem? in
                guard case .equals(let value) = item.value else { return nil }
                return URLQueryItem(name: item.key, value: value)
            }
            // `present` (a recorded secret) or `matches`: sent, with a value the bundle does not keep.
            let withoutValues = Set(conditions.query.compactMap { item -> String? in
                switch item.value {
                case .present, .matches: item.key
                case .equals, .absent: nil
                }
            })
            if !query.isEmpty { url.queryItems = query }
            guard let requestURL = url.url else {
                summary.problems.append(Diagnostic(.trafficNotChecked, file: file, position: source.position, keyPath: source.keyPath,
                                                   message: "\(rule.displayName): the rule's host, path and query make no URL; not checked"))
                continue
            }
            let headers = conditions.headers.sorted { $0.key < $1.key }.compactMap { item -> TrafficEntry.Header? in
                guard case .equals(let value) = item.value else { return nil }
                return .init(name: item.key, value: value)
            }
            summary.entries += 1
            var entry = TrafficEntry(index: i + 1, method: conditions.methods?.sorted().first ?? "GET", url: requestURL, headers: headers,
                                     body: nil, response: nil, source: source)
            entry.hostIsKnown = conditions.host != nil
            entry.headersAreComplete = false
            entry.queryNamesWithoutValues = withoutValues
            entry.bodyIsKnown = false
            let response = rule.response
            if response.error == nil {
                let body: Data?
                switch response.body {
                case .empty: body = Data()
                case .inline(let data), .json(let data): body = data
                case .file(let url): body = try? Data(contentsOf: url)
                }
                var responseHeaders = response.headers.map { TrafficEntry.Header(name: $0.name, value: $0.value) }
                if let type = response.effectiveContentType, !responseHeaders.contains(where: { $0.name.lowercased() == "content-type" }) {
                    responseHeaders.append(.init(name: "Content-Type", value: type))
                }
                entry.response = .init(status: response.status, headers: responseHeaders, body: response.template == nil ? body : nil,
                                       isReal: recorded)
            }
            visit(entry)
        }
        return summary
    }
}
#endif
