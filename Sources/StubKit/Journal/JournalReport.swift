import Foundation

/// A self-contained HTML report of a journal against the rules that were active: hits per rule,
/// rules never used, and every miss with its near-miss explanation. No external files or network.
public struct JournalReport: Sendable {
    /// The whole report, one HTML document with its styles and scripts inline.
    public let html: String

    /// The report of an engine's journal against its active bundles.
    public init(engine: StubEngine) {
        self.init(entries: engine.journal.entries, bundles: engine.activeBundles, droppedEntries: engine.journal.droppedEntryCount)
    }

    /// - Parameters:
    ///   - entries: the journal's entries, oldest first.
    ///   - bundles: the bundles that were active, whose rules the report counts hits for.
    ///   - droppedEntries: how many older entries the journal dropped to stay within its limits.
    package init(entries: [JournalEntry], bundles: [StubBundle], droppedEntries: Int = 0) {
        var hits: [String: Int] = [:]
        for entry in entries { if let rule = entry.rule { hits[rule.location, default: 0] += 1 } }
        var ruleRows = ""
        var unusedRows = ""
        var ruleCount = 0
        for bundle in bundles {
            for rule in bundle.rules {
                ruleCount += 1
                let count = hits[rule.source.locationDescription] ?? 0
                let row = "<tr data-hits=\"\(count)\"><td>\(Self.escape(bundle.template))</td><td>\(Self.escape(rule.displayName))</td><td><code>\(Self.escape(rule.source.locationDescription))</code></td><td class=\"num\">\(count)</td></tr>\n"
                ruleRows += row
                if count == 0 { unusedRows += row }
            }
        }
        var missRows = ""
        var requestRows = ""
        for entry in entries {
            let outcome: String
            if let status = entry.status { outcome = String(status) } else { outcome = "error \(entry.error?.code ?? 0)" }
            var notes: [String] = []
            if entry.passedThrough { notes.append("passed through to the network") }
            if let file = entry.recordedAs { notes.append("recorded as \(file)") }
            if let failure = entry.recordingFailure { notes.append("not recorded: \(failure)") }
            if entry.requestBodyTruncated {
                let kept = entry.request.body?.count ?? 0
                notes.append(entry.requestBodySize < 0 ? "request body truncated: \(kept) bytes kept of an unknown size"
                                                       : "request body truncated: \(kept) of \(entry.requestBodySize) bytes kept")
            }
            if entry.responseBodyTruncated { notes.append("response body truncated: \(entry.responseBody?.count ?? 0) of \(entry.responseBodySize) bytes kept") }
            let note = notes.isEmpty ? "" : "<br><small class=\"truncated\">\(Self.escape(notes.joined(separator: "; ")))</small>"
            requestRows += "<tr class=\"\(entry.rule == nil ? "miss" : "hit")\"><td class=\"num\">\(entry.id)</td><td>\(Self.escape(entry.request.method))</td><td><code>\(Self.escape(entry.request.url.absoluteString))</code></td><td>\(Self.escape(outcome))\(note)</td><td>\(Self.escape(entry.rule.map { "\(entry.bundle ?? ""): \($0.name)" } ?? (entry.passedThrough ? "passed through" : "no rule")))</td><td class=\"num\">\(String(format: "%.1f", entry.duration * 1000)) ms</td></tr>\n"
            guard entry.rule == nil else { continue }
            var explanation = ""
            for miss in entry.nearMisses {
                explanation += "<li><b>\(Self.escape(miss.bundle)): \(Self.escape(miss.rule.displayName))</b> <code>\(Self.escape(miss.rule.source.locationDescription))</code><ul>"
                for mismatch in miss.mismatches { explanation += "<li>\(Self.escape(mismatch.description))</li>" }
                explanation += "</ul></li>"
            }
            if explanation.isEmpty { explanation = "<li>no rule is close</li>" }
            missRows += "<tr><td><code>\(Self.escape(entry.request.method)) \(Self.escape(entry.request.url.absoluteString))</code><br>\(Self.escape(entry.error?.description ?? ""))</td><td><ul class=\"near\">\(explanation)</ul></td></tr>\n"
        }
        let answered = entries.filter { $0.rule != nil }.count
        html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>StubKit journal report</title>
        <style>
        body { font: 14px/1.4 -apple-system, system-ui, sans-serif; margin: 2em; color: #222; }
        table { border-collapse: collapse; margin-bottom: 2em; width: 100%; }
        th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
        th { background: #f0f0f0; }
        td.num { text-align: right; }
        tr.miss td { background: #fde8e8; }
        tr[data-hits="0"] td { color: #8a6d00; }
        code { font-size: 12px; }
        </style>
        </head>
        <body>
        <h1>StubKit journal report</h1>
        <p id="summary" data-requests="\(entries.count)" data-answered="\(answered)" data-rules="\(ruleCount)" data-unused="\(ruleCount - Set(hits.keys).count)">\(entries.count) requests, \(answered) answered by a rule, \(entries.count - answered) unanswered.</p>
        \(droppedEntries > 0 ? "<p id=\"dropped\" data-dropped=\"\(droppedEntries)\">\(droppedEntries) older requests are not shown: the journal dropped them to stay within its limits (StubJournal.Limits).</p>" : "")
        <h2>Hits per rule</h2>
        <table id="rules"><thead><tr><th>Bundle</th><th>Rule</th><th>Location</th><th>Hits</th></tr></thead><tbody>
        \(ruleRows)</tbody></table>
        <h2>Rules never used</h2>
        <table id="unused"><thead><tr><th>Bundle</th><th>Rule</th><th>Location</th><th>Hits</th></tr></thead><tbody>
        \(unusedRows)</tbody></table>
        <h2>Requests no rule answered</h2>
        <table id="misses"><thead><tr><th>Request</th><th>Closest rules and what did not match</th></tr></thead><tbody>
        \(missRows)</tbody></table>
        <h2>All requests</h2>
        <table id="requests"><thead><tr><th>#</th><th>Method</th><th>URL</th><th>Outcome</th><th>Rule</th><th>Time</th></tr></thead><tbody>
        \(requestRows)</tbody></table>
        <script>
        // Coverage line, computed in the page from the tables above.
        (function () {
          var rules = document.querySelectorAll('#rules tbody tr');
          var used = 0;
          rules.forEach(function (row) { if (row.getAttribute('data-hits') !== '0') { used++; } });
          var line = document.createElement('p');
          line.id = 'coverage';
          line.textContent = 'Rule coverage: ' + used + ' of ' + rules.length + ' rules used (' + (rules.length ? Math.round(100 * used / rules.length) : 0) + '%).';
          document.getElementById('summary').after(line);
        })();
        </script>
        </body>
        </html>

        """
    }

    /// Writes the HTML to a file, replacing it atomically.
    public func write(to url: URL) throws {
        try Data(html.utf8).write(to: url, options: .atomic)
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}

extension StubEngine {
    /// Rules of the active bundles that answered no request in the journal.
    package func unusedRules(in template: String? = nil) -> [StubRule] {
        let used = Set(journal.entries.compactMap { $0.rule?.location })
        return activeBundles.filter { template == nil || $0.template == template }
            .flatMap(\.rules)
            .filter { !used.contains($0.source.locationDescription) }
    }

    /// Throws when some rule of the bundle (or of every active bundle) answered nothing.
    public func verifyAllRulesUsed(in template: String? = nil) throws(VerificationError) {
        let unused = unusedRules(in: template)
        guard unused.isEmpty else {
            throw VerificationError("expected every rule\(template.map { " of \($0)" } ?? "") to be used; never used: "
                + unused.map { "\($0.displayName) (\($0.source.locationDescription))" }.joined(separator: "; "))
        }
    }
}
