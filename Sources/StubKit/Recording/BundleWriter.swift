import Foundation

/// Writes exchanges into a bundle folder as a `stubsRules.json` and response files that load and lint
/// clean: the one writer behind recording (and, later, the importers and the local server).
///
/// Every append leaves a valid bundle on disk, so an app killed mid-run keeps everything recorded so
/// far: the response file is written first (staged under a hidden name, then renamed), then the rules
/// file is rewritten whole to a hidden temporary and renamed over the old one. Identical requests
/// become one rule whose `responses` keep the recorded order, never two rules where the second is
/// shadowed. Appends are serialized by one lock, so concurrent recordings interleave no files.
package final class BundleWriter: Sendable {
    /// What a request must look like to be answered by a written rule.
    package struct RequestConditions: Sendable, Hashable {
        package enum QueryValue: Sendable, Hashable {
            case equals(String)
            /// Present with any value (a redacted secret: the replay sends the real one).
            case present
        }

        package enum Body: Sendable, Hashable {
            /// The body text, exactly.
            case equals(String)
            /// A JSON value (compact text with sorted keys), compared ignoring key order and whitespace.
            case equalsJSON(String)
            /// A JSON object (compact text with sorted keys) the body must contain.
            case containsJSON(String)
        }

        package var method: String
        package var host: String?
        /// The URL path, percent-encoded as sent.
        package var path: String
        package var query: [String: QueryValue]
        package var body: Body?
        /// The GraphQL operation (see `BundleWriter+GraphQL.swift`): written as `graphql`.
        package var graphQL: GraphQLConditions?
        /// More conditions of imported stubs (see `BundleWriter+ImportedRules.swift`); recording sets none.
        package var options = ImportedOptions()
        /// Indexes of path segments (counting non-empty ones from 0) that match any value: a redacted
        /// secret, written as ``Redactor/placeholder`` in `path` and as `*` in the rule.
        package var anySegments: Set<Int> = []
        /// Lower-cased `http` or `https`, written as the rule's `scheme` when known.
        package var scheme: String?
        /// The port when the URL names one other than the scheme's default.
        package var port: Int?
        /// A regular expression the whole raw query must match, in order, when a name repeats (a query
        /// condition sees only a name's first value); see ``regexEscaped(_:)``.
        package var exactQuery: String?
        /// The query as recorded, in order, as ``exactQuery`` would pin it: used only when the rule needs
        /// a `urlRegex` anyway, and not part of what makes two requests identical.
        package var recordedQuery: String?
        /// The rule answers WebSocket upgrades with a `webSocket` script (see `BundleWriter+WebSocket.swift`),
        /// so it is never the same rule as a plain `GET` of the same URL.
        package var webSocket = false

        package static func == (a: Self, b: Self) -> Bool {
            a.webSocket == b.webSocket && a.method == b.method && a.host == b.host && a.path == b.path && a.query == b.query && a.body == b.body
                && a.anySegments == b.anySegments && a.scheme == b.scheme && a.port == b.port && a.exactQuery == b.exactQuery
                && a.options == b.options && a.graphQL == b.graphQL
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(method); hasher.combine(host); hasher.combine(path); hasher.combine(query); hasher.combine(body)
            hasher.combine(anySegments); hasher.combine(scheme); hasher.combine(port); hasher.combine(exactQuery)
            hasher.combine(options); hasher.combine(webSocket); hasher.combine(graphQL)
        }

        package init(method: String, host: String?, path: String, query: [String: QueryValue] = [:], body: Body? = nil) {
            self.method = method.uppercased()
            self.host = host
            self.path = path.isEmpty ? "/" : path
            self.query = query
            self.body = body
        }

        /// How many conditions beyond method, host and path: more specific rules are written first.
        /// A WebSocket rule counts one more: it answers upgrades only, so it goes before a plain `GET` of its URL.
        var specificity: Int { query.count + (body == nil ? 0 : 1) + options.specificity + (webSocket ? 1 : 0) + (graphQL?.specificity ?? 0) }
    }

    /// A response to store.
    package struct Response: Sendable {
        package enum Body: Sendable {
            case none
            case data(Data)
            /// A file the writer moves into the bundle (a streamed body, never held in memory).
            case file(URL)
        }

        package var status: Int
        package var headers: [String: String]
        package var body: Body
        /// Extension of the response file (`json`, `txt`, `png`, `bin`, …).
        package var fileExtension: String
        /// Seconds before the response starts (imported stubs).
        package var delay: Double?
        /// A simulated network failure instead of the response (``SimulatedNetworkError`` raw value).
        package var error: String?
        /// Server-Sent Events instead of a body (a recorded `text/event-stream`).
        package var events: EventStream?

        package init(status: Int, headers: [String: String], body: Body, fileExtension: String) {
            self.status = status
            self.headers = headers
            self.body = body
            self.fileExtension = fileExtension
        }
    }

    /// Headers that describe one transfer, not the resource: never stored (StubKit computes
    /// `Content-Length`; the stored body is already decoded).
    package static let transferHeaders: Set<String> = ["content-length", "date", "transfer-encoding", "connection", "keep-alive", "content-encoding"]

    package let folder: URL
    package var rulesFile: URL { folder.appendingPathComponent("stubsRules.json") }
    /// A hidden file naming the response file an append is writing, from just before that file
    /// appears until the rules use it (see ``pendingFileName``).
    private var pendingFile: URL { folder.appendingPathComponent(Self.pendingFileName) }
    /// The name of the file that lists response files not yet in the rules: the loader does not call
    /// them unused, and the next writer opening the folder deletes those the rules never took up.
    package static let pendingFileName = ".stubkit-pending"
    let state: Locked<State>
    /// Told each step of an append as it completes, under the lock: a test copies the folder there to
    /// see what a kill at that moment would leave.
    let stepObserver: (@Sendable (WriteStep) -> Void)?

    /// The steps of one append, in order.
    enum WriteStep: String, Sendable, CaseIterable {
        case responseStaged, responseVisible, rulesStaged, rulesVisible, finished
    }

    struct Stored {
        var status: Int
        var headers: [String: String]
        var file: String?
        var delay: Double?
        var error: String?
        var events: EventStream?
        /// A WebSocket rule's script, written as its `webSocket` key instead of a response.
        var webSocket: JSONText? = nil
    }

    struct State {
        /// The rules file's top-level keys other than `rules` (kept when appending to a bundle).
        var topLevel: [String: Any] = [:]
        var preservedRules: [Any] = []
        var groups: [(request: RequestConditions, responses: [Stored])] = []
        var groupIndex: [RequestConditions: Int] = [:]
        /// File names in the folder, lower-cased (case-insensitive file systems).
        var takenNames: Set<String> = []
        /// Between ``beginBatch()`` and ``endBatch()``: the rules file is written once, at the end.
        var batching = false
        /// Text response files written by this writer, to scrub again when a secret is learned late.
        var textFiles: [String] = []

        /// A response for `request`: the next of its rule's `responses`, or a new rule.
        mutating func add(_ request: RequestConditions, _ stored: Stored) {
            if let i = groupIndex[request] {
                groups[i].responses.append(stored)
            } else {
                groupIndex[request] = groups.count
                groups.append((request, [stored]))
            }
        }
    }

    /// Opens (creating it if needed) a bundle folder for appending.
    ///
    /// - Parameters:
    ///   - folder: the bundle folder; created when missing.
    ///   - replacing: remove whatever the folder holds first, except the test's recorded values
    ///     (`recordedValues.json`).
    ///   - recordedAt: written as the bundle's `recordedAt` unless the bundle already has one.
    /// - Throws: ``RecordingError`` naming the folder when it cannot be created or written, or its
    ///   existing rules file is not a JSON rules file this writer can extend.
    package convenience init(folder: URL, replacing: Bool = false, recordedAt: Date? = nil) throws(RecordingError) {
        try self.init(folder: folder, replacing: replacing, recordedAt: recordedAt, stepObserver: nil)
    }

    init(folder: URL, replacing: Bool = false, recordedAt: Date? = nil, stepObserver: (@Sendable (WriteStep) -> Void)?) throws(RecordingError) {
        self.stepObserver = stepObserver
        self.folder = folder.standardizedFileURL
        let fm = FileManager.default
        var state = State()
        // Replacing empties the folder: only ever a bundle (a folder with a rules file) or an empty one,
        // never whatever folder a mistyped template or path names.
        var isDirectory: ObjCBool = false
        if replacing, fm.fileExists(atPath: folder.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw RecordingError(path: folder.path, reason: "is a file, not a bundle folder, so it will not be replaced; name a folder")
        }
        // A folder holding only the values a test saved for a recording that never got a rules file
        // (the app was stopped first) is still that recording's folder. Hidden files are no bundle
        // content (a save's temporary left by a crash, a .DS_Store); a hidden folder (.git) is.
        if replacing, let entries = try? fm.contentsOfDirectory(atPath: folder.path).filter({ name in
            name != BundleLoader.recordedValuesFileName && !(name.hasPrefix(".") && !Self.isDirectory(folder.appendingPathComponent(name)))
        }), !entries.isEmpty, !RuleKeys.rulesFileNames.contains(where: entries.contains) {
            throw RecordingError(path: folder.path, reason: "is not a stub bundle (it has no rules file), so recording in mode 'all' will not replace it; name another template or empty the folder")
        }
        do {
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
            if replacing { try Self.empty(folder) }
            // Prove the folder writable now, at activation, rather than at the first response.
            let probe = folder.appendingPathComponent(".stubkit-write-check-\(UUID().uuidString)")
            try Data().write(to: probe)
            try fm.removeItem(at: probe)
        } catch {
            throw RecordingError(path: folder.path, reason: "cannot write the recording folder: \(error.localizedDescription)")
        }
        for name in (try? fm.contentsOfDirectory(atPath: folder.path)) ?? [] {
            // Leftovers of a run killed between staging and renaming.
            if name.hasPrefix(".partial-") || name.hasPrefix(".stubsRules.json.tmp") {
                try? fm.removeItem(at: folder.appendingPathComponent(name))
            } else {
                state.takenNames.insert(name.lowercased())
            }
        }
        for other in RuleKeys.rulesFileNames where other != "stubsRules.json" && state.takenNames.contains(other.lowercased()) {
            throw RecordingError(path: folder.appendingPathComponent(other).path, reason: "the bundle has a rules file other than stubsRules.json; recording appends to stubsRules.json only")
        }
        let rulesFile = self.folder.appendingPathComponent("stubsRules.json")
        if let data = fm.contents(atPath: rulesFile.path) {
            guard let value = try? JSONSerialization.jsonObject(with: data) else {
                throw RecordingError(path: rulesFile.path, reason: "not valid JSON, so recording cannot append to it; fix it with stublint, or record with STUB_RECORD_MODE=all")
            }
            if let rules = value as? [Any] {
                state.preservedRules = rules
            } else if var top = value as? [String: Any], let rules = top["rules"] as? [Any] {
                top["rules"] = nil
                state.preservedRules = rules
                state.topLevel = top
            } else {
                throw RecordingError(path: rulesFile.path, reason: "neither an array of rules nor a dictionary with 'rules'")
            }
        }
        // Only now, once the folder is known to be a JSON bundle this writer extends, and against the
        // rules as parsed: a refused bundle keeps every file.
        Self.removeUnfinishedAppend(in: self.folder, rules: state.preservedRules)
        if state.topLevel["recordedAt"] == nil, let recordedAt {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            state.topLevel["recordedAt"] = formatter.string(from: recordedAt)
        }
        self.state = Locked(state)
    }

    /// The number of rules the rules file holds (preserved and written).
    package var ruleCount: Int {
        state.withLock { $0.preservedRules.count + $0.groups.count }
    }

    /// Adds one exchange: stores the body as a response file and rewrites the rules file. A request
    /// identical to one written before adds the next response to that rule's `responses`.
    ///
    /// - Returns: the response file's name in the bundle, or `nil` for an empty body.
    /// - Throws: ``RecordingError`` naming the file that could not be written; the bundle on disk is
    ///   then as it was before the call.
    @discardableResult
    package func append(_ request: RequestConditions, _ response: Response) throws(RecordingError) -> String? {
        do {
            return try appendLocked(request, response)
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(path: folder.path, reason: error.localizedDescription)
        }
    }

    private func appendLocked(_ request: RequestConditions, _ response: Response) throws -> String? {
        try state.withLock { state -> String? in
            let fm = FileManager.default
            var file: String? = nil
            let empty: Bool
            switch response.body {
            case .none: empty = true
            case .data(let data): empty = data.isEmpty
            case .file(let url): empty = ((try? fm.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0) == 0
            }
            if !empty {
                let name = Self.uniqueName(for: request, extension: response.fileExtension, taken: state.takenNames)
                let staged = folder.appendingPathComponent(".partial-\(UUID().uuidString)")
                let target = folder.appendingPathComponent(name)
                do {
                    switch response.body {
                    case .none: break
                    case .data(let data): try data.write(to: staged)
                    case .file(let url):
                        do { try fm.moveItem(at: url, to: staged) } catch { try fm.copyItem(at: url, to: staged) }
                    }
                    // Named before it becomes visible: until the rules use it, a kill would leave it
                    // unused; the loader passes over it and the next writer removes it.
                    try Data((name + "\n").utf8).write(to: pendingFile)
                    stepObserver?(.responseStaged)
                    try fm.moveItem(at: staged, to: target)
                    stepObserver?(.responseVisible)
                } catch {
                    try? fm.removeItem(at: staged)
                    try? fm.removeItem(at: pendingFile)
                    throw RecordingError(path: target.path, reason: "cannot write the response file: \(error.localizedDescription)")
                }
                state.takenNames.insert(name.lowercased())
                if MediaType.isText(fileExtension: response.fileExtension) { state.textFiles.append(name) }
                file = name
            }
            let headers = response.headers.filter { !Self.transferHeaders.contains($0.key.lowercased()) }
            let stored = Stored(status: response.status, headers: headers, file: file, delay: response.delay, error: response.error, events: response.events)
            if state.batching {
                // Nothing is written before endBatch(), so nothing to roll back: no copy of the state
                // (copying it per append made a 10,000-entry import quadratic).
                state.add(request, stored)
                return file
            }
            var next = state
            next.add(request, stored)
            do {
                try write(next)
            } catch {
                if let file { try? fm.removeItem(at: folder.appendingPathComponent(file)) }
                try? fm.removeItem(at: pendingFile)
                throw RecordingError(path: rulesFile.path, reason: "cannot write the rules file: \(error.localizedDescription)")
            }
            state = next
            if file != nil { try? fm.removeItem(at: pendingFile) }
            stepObserver?(.finished)
            return file
        }
    }

    /// Defers writing the rules file until ``endBatch()``, so importing thousands of exchanges writes
    /// it once rather than after each one. Response files are still written as they come; until
    /// ``endBatch()`` the bundle on disk lacks the rules for them.
    package func beginBatch() {
        state.withLock { $0.batching = true }
    }

    /// Writes the rules file with everything appended since ``beginBatch()``.
    package func endBatch() throws(RecordingError) {
        let failure: RecordingError? = state.withLock { state in
            state.batching = false
            do { try write(state) } catch {
                return RecordingError(path: rulesFile.path, reason: "cannot write the rules file: \(error.localizedDescription)")
            }
            // The rules now use every response file the batch wrote: none is pending any more.
            try? FileManager.default.removeItem(at: pendingFile)
            return nil
        }
        if let failure { throw failure }
    }

    // MARK: Writing the rules file

    func write(_ state: State) throws {
        var top: [(String, JSONText)] = []
        for key in state.topLevel.keys.sorted() { top.append((key, .from(any: state.topLevel[key]!))) }
        // Recorded order, except that rules for one endpoint sit together (where it was first
        // recorded), more specific first: a rule without a query or body condition then never
        // shadows one with them.
        var firstSeen: [String: Int] = [:]
        let keyed = state.groups.enumerated().map { offset, group -> (endpoint: Int, group: (request: RequestConditions, responses: [Stored]), offset: Int) in
            let endpoint = "\(group.request.method) \(group.request.host ?? "") \(group.request.path)"
            if firstSeen[endpoint] == nil { firstSeen[endpoint] = offset }
            return (firstSeen[endpoint]!, group, offset)
        }
        let ordered = keyed.sorted {
            if $0.endpoint != $1.endpoint { return $0.endpoint < $1.endpoint }
            if $0.group.request.specificity != $1.group.request.specificity { return $0.group.request.specificity > $1.group.request.specificity }
            return $0.offset < $1.offset
        }.map { (offset: $0.offset, element: $0.group) }
        let (pinned, inOrder) = Self.groupsNeedingURLRegex(state.groups.map(\.request))
        let rules = state.preservedRules.map(JSONText.from(any:))
            + ordered.map { Self.rule($0.element.request, $0.element.responses, urlRegex: pinned.contains($0.offset), orderedQuery: inOrder.contains($0.offset)) }
        top.append(("rules", .array(rules)))
        let data = Data((JSONText.object(top).rendered() + "\n").utf8)
        let temporary = folder.appendingPathComponent(".stubsRules.json.tmp-\(UUID().uuidString)")
        try data.write(to: temporary)
        stepObserver?(.rulesStaged)
        // rename(2) replaces the old file in one step: a reader sees the old rules or the new ones.
        guard rename(temporary.path, rulesFile.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw RecordingError(path: rulesFile.path, reason: String(cString: strerror(errno)))
        }
        stepObserver?(.rulesVisible)
    }
}
