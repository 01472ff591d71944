#if Tools
import Foundation

/// What every suite is given: the run's size and a scratch folder of its own.
struct BenchmarkConfiguration: Sendable {
    /// Smaller sizes and fewer runs: the figures are indicative only.
    var quick: Bool
    /// Where the full run writes its JSON report.
    var outputPath: String
    /// A folder for the run's bundles, removed when it ends.
    var work: URL

    /// A bundle of `count` distinct literal-path rules, `/api/v1/resource{i}/{id}`, each answering
    /// `{"id": i}` with the header `X-Rule: i`.
    func makeBundle(_ name: String, rules count: Int, plist: Bool) throws -> URL {
        let folder = work.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let json = Self.rulesJSON(count)
        if plist {
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8))
            let data = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
            try data.write(to: folder.appendingPathComponent("stubsRules.plist"))
        } else {
            try Data(json.utf8).write(to: folder.appendingPathComponent("stubsRules.json"))
        }
        return folder
    }

    /// A bundle whose rules file is `rules`, as written.
    func makeBundle(_ name: String, rulesJSON rules: String) throws -> URL {
        let folder = work.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(rules.utf8).write(to: folder.appendingPathComponent("stubsRules.json"))
        return folder
    }

    static func rulesJSON(_ count: Int) -> String {
        var lines: [String] = []
        for i in 0..<count {
            lines.append(#"  { "name": "rule \#(i)", "method": "GET", "path": "/api/v1/resource\#(i)/{id}", "status": 200, "body": "{\"id\": \#(i)}", "headers": { "X-Rule": "\#(i)" } }"#)
        }
        return "[\n" + lines.joined(separator: ",\n") + "\n]\n"
    }
}
#endif
