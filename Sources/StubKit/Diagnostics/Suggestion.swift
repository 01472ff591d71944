/// Did-you-mean suggestions by edit distance, as swift-argument-parser offers them.
package enum Suggestion {
    /// Keys people bring from other stub tools (WireMock, Mockoon, OHHTTPStubs helpers), lowercased,
    /// with the StubKit key they mean. Edit distance cannot find these: `statusCode` is 4 edits from `status`.
    static let aliases: [String: RuleKey] = [
        "statuscode": .status, "responsecode": .status, "httpstatus": .status, "code": .status,
        "status_code_value": .status, "statuscodevalue": .status,
        "url": .path, "uri": .path, "urlpath": .path, "endpoint": .path, "route": .path,
        "urlpattern": .urlRegex, "urlregexp": .urlRegex, "regex": .urlRegex,
        "responsefile": .response, "mockfile": .response, "file": .response, "bodyfile": .response, "bodyfilename": .response,
        "latency": .delay, "wait": .delay, "fixeddelaymilliseconds": .delay,
        "verbs": .method, "verb": .method, "methods": .method, "httpmethod": .method,
        "responsebody": .body, "mockbody": .body, "content": .body,
        "responseheaders": .headers, "jsonbody": .json,
    ]

    /// The candidate closest to `word`, if it is close enough to be a likely typo, or the key a known
    /// alias from another tool stands for.
    ///
    /// Cost is bounded by the candidates' lengths, not the word's: a word much longer than every
    /// candidate cannot be within the typo limit, so a 1 MB unknown key costs one pass over its bytes.
    package static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let candidates = Array(candidates)
        let longest = candidates.map(\.utf8.count).max() ?? 0
        // A typo is at most a third of the word away; far longer words are not typos of any candidate.
        guard word.utf8.count <= 2 * longest + 4 else { return nil }
        let lowered = word.lowercased()
        if let alias = aliases[lowered]?.rawValue, candidates.contains(alias) { return alias }
        var best: (String, Int)? = nil
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if best == nil || distance < best!.1 || (distance == best!.1 && candidate < best!.0) {
                best = (candidate, distance)
            }
        }
        guard let (candidate, distance) = best else { return nil }
        let limit = max(2, min(lowered.count, candidate.count) / 3)
        return distance <= limit ? candidate : nil
    }

    /// Damerau-Levenshtein distance (optimal string alignment), so a swapped pair costs one edit.
    ///
    /// Three rows of the table, not the whole table: memory is linear in the shorter word.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
