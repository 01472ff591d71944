#if Tools
import Foundation
import StubKit

struct LintSummary {
    var errors = 0, warnings = 0, notes = 0
    var bundles: Int
    var rules: Int
    /// What `bundles` and `rules` count, singular and plural: bundles and rules for `lint`, inputs
    /// and entries for `traffic`.
    var nouns = (container: ("bundle", "bundles"), item: ("rule", "rules"))

    init(diagnostics: [Diagnostic], bundles: Int, rules: Int) {
        for d in diagnostics {
            switch d.severity {
            case .error: errors += 1
            case .warning: warnings += 1
            case .note: notes += 1
            }
        }
        self.bundles = bundles
        self.rules = rules
    }

    var line: String {
        func count(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        func count(_ n: Int, _ words: (String, String)) -> String { "\(n) \(n == 1 ? words.0 : words.1)" }
        return "\(count(errors, "error")), \(count(warnings, "warning")), \(count(notes, "note")) in \(count(bundles, nouns.container)) (\(count(rules, nouns.item)))"
    }
}

/// The output formats of `stublint lint`.
enum LintOutput {
    static func text(_ diagnostics: [Diagnostic], summary: LintSummary, quiet: Bool) -> String {
        var out = ""
        if !quiet {
            for d in diagnostics {
                out += d.description + "\n"
                if let related = d.related { out += related.noteLine + "\n" }
            }
        }
        return out + summary.line + "\n"
    }

    static func json(_ diagnostics: [Diagnostic], summary: LintSummary, quiet: Bool) -> String {
        var items: [[String: Any]] = []
        if !quiet {
            for d in diagnostics {
                var item: [String: Any] = ["code": d.code.rawValue, "severity": d.severity.rawValue, "file": d.file, "keyPath": d.keyPath, "message": d.message]
                if let p = d.position { item["line"] = p.line; item["column"] = p.column }
                if let fix = d.fix { item["fix"] = fix }
                if let pointer = d.pointer { item["pointer"] = pointer }
                if let r = d.related {
                    var related: [String: Any] = ["file": r.file, "keyPath": r.keyPath, "message": r.message]
                    if let p = r.position { related["line"] = p.line; related["column"] = p.column }
                    item["related"] = related
                }
                items.append(item)
            }
        }
        let object: [String: Any] = [
            "diagnostics": items,
            "summary": ["errors": summary.errors, "warnings": summary.warnings, "notes": summary.notes, summary.nouns.container.1: summary.bundles, summary.nouns.item.1: summary.rules],
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// GitHub Actions workflow commands: each diagnostic becomes an annotation on the file.
    static func github(_ diagnostics: [Diagnostic], summary: LintSummary, quiet: Bool) -> String {
        var out = ""
        if !quiet {
            for d in diagnostics {
                let command = d.severity == .error ? "error" : d.severity == .warning ? "warning" : "notice"
                var properties = ["file=\(escapeProperty(d.file))"]
                if let p = d.position { properties += ["line=\(p.line)", "col=\(p.column)"] }
                properties.append("title=\(escapeProperty(d.code.rawValue))")
                var message = d.keyPath.isEmpty ? d.message : "\(d.keyPath): \(d.message)"
                if let fix = d.fix { message += "; \(fix)" }
                out += "::\(command) \(properties.joined(separator: ","))::\(escapeData(message))\n"
            }
        }
        return out + summary.line + "\n"
    }

    private static func escapeData(_ s: String) -> String {
        s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    private static func escapeProperty(_ s: String) -> String {
        escapeData(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    /// A JUnit XML report: one test case per bundle, failing when it has errors or warnings.
    /// `diagnostics`: every diagnostic (the bundles' own and the OpenAPI checks'), shared out by bundle folder.
    static func junit(_ reports: [(String, BundleLinter.Report)], diagnostics: [Diagnostic], summary: LintSummary) -> String {
        var cases: [(name: String, failures: [Diagnostic])] = []
        for (_, report) in reports {
            for bundle in report.bundles {
                let name = bundle.lastPathComponent
                let failures = diagnostics.filter { d in
                    d.severity != .note && (d.file == name || d.file.hasPrefix(name + "/") || d.file.contains("/\(name)/") || d.file.hasSuffix("/\(name)"))
                }
                cases.append((name, failures))
            }
        }
        return junit(cases: cases)
    }

    /// A JUnit XML report of named test cases, each failing when it has errors or warnings.
    static func junit(cases: [(name: String, failures: [Diagnostic])]) -> String {
        let failing = cases.filter { !$0.failures.isEmpty }.count
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"stublint\" tests=\"\(cases.count)\" failures=\"\(failing)\">\n"
        out += "  <testsuite name=\"stublint\" tests=\"\(cases.count)\" failures=\"\(failing)\" errors=\"0\">\n"
        for c in cases {
            out += "    <testcase classname=\"stublint\" name=\"\(xml(c.name))\""
            if c.failures.isEmpty {
                out += "/>\n"
                continue
            }
            out += ">\n"
            let errors = c.failures.filter { $0.severity == .error }.count
            out += "      <failure message=\"\(errors) error(s), \(c.failures.count - errors) warning(s)\" type=\"\(errors > 0 ? "error" : "warning")\">"
            out += xml(c.failures.map(\.description).joined(separator: "\n"))
            out += "</failure>\n    </testcase>\n"
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }

    private static func xml(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
#endif
