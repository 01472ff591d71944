import Foundation

/// Loads one stub bundle folder: finds its rules file, parses it, decodes the rules and checks them.
///
/// The engine and `stublint` both load through here, so they agree on every diagnostic. Loading never
/// throws and never crashes on bad data: every problem comes back as a ``Diagnostic``.
package struct BundleLoader: Sendable {
    package struct Options: Sendable {
        /// Report legacy keys (`matching_url`, `json_file`, …) as notes.
        package var reportLegacyKeys: Bool
        /// Parse response files that are, or claim to be, JSON. Costs a read of each file.
        package var checkResponseBodies: Bool
        /// Report files in the bundle folder that no rule names.
        package var reportUnusedFiles: Bool
        /// Report duplicate and shadowed rules.
        package var reportRuleOverlaps: Bool
        /// Diagnostics name files relative to this folder when they lie inside it.
        package var displayBase: URL?

        package init(reportLegacyKeys: Bool = true, checkResponseBodies: Bool = false, reportUnusedFiles: Bool = false,
                    reportRuleOverlaps: Bool = false, displayBase: URL? = nil) {
            self.reportLegacyKeys = reportLegacyKeys
            self.checkResponseBodies = checkResponseBodies
            self.reportUnusedFiles = reportUnusedFiles
            self.reportRuleOverlaps = reportRuleOverlaps
            self.displayBase = displayBase
        }

        /// What the engine checks when it activates a bundle: everything that decides which rules serve.
        package static let engine = Options()
        /// Everything: what `stublint` checks.
        package static let lint = Options(checkResponseBodies: true, reportUnusedFiles: true, reportRuleOverlaps: true)
    }

    /// Rules files larger than this are refused rather than read (a rules file is hand-written text).
    package static let maximumRulesFileSize = 64 << 20

    package var options: Options

    package init(options: Options = .engine) {
        self.options = options
    }

    /// A loaded bundle with everything found wrong in it. The bundle holds only the rules without errors.
    package struct Result: Sendable {
        package var bundle: StubBundle
        package var diagnostics: [Diagnostic]
    }

    package func load(folder: URL) -> Result {
        let folder = folder.standardizedFileURL
        let template = StubBundle.templateName(ofFolder: folder)
        var diagnostics: [Diagnostic] = []
        let folderName = display(folder)
        let empty = StubBundle(template: template, folder: folder, rulesFile: nil, rules: [])

        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            diagnostics.append(Diagnostic(.unreadableFile, file: folderName, message: "bundle folder does not exist or is not a folder"))
            return Result(bundle: empty, diagnostics: diagnostics)
        }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        } catch {
            diagnostics.append(Diagnostic(.unreadableFile, file: folderName, message: "bundle folder cannot be read", fix: "check its permissions"))
            return Result(bundle: empty, diagnostics: diagnostics)
        }
        // Documented order, never the file system's listing order.
        let rulesFiles = RuleKeys.rulesFileNames.filter { entries.contains($0) }
        guard let rulesFileName = rulesFiles.first else {
            let near = entries.first { name in RuleKeys.rulesFileNames.contains { $0.lowercased() == name.lowercased() } }
            diagnostics.append(Diagnostic(.missingRulesFile, file: folderName, message: "the bundle has no rules file",
                                          fix: near.map { found in "rename '\(found)' to '\(RuleKeys.rulesFileNames.first { $0.lowercased() == found.lowercased() }!)' (names are case-sensitive)" }
                                            ?? "add stubsRules.json or stubsRules.plist"))
            return Result(bundle: empty, diagnostics: diagnostics)
        }
        let rulesURL = folder.appendingPathComponent(rulesFileName)
        let rulesName = display(rulesURL)
        for other in rulesFiles.dropFirst() {
            diagnostics.append(Diagnostic(.multipleRulesFiles, file: display(folder.appendingPathComponent(other)),
                                          message: "the bundle has two rules files; '\(rulesFileName)' is used and this one is ignored",
                                          fix: "merge the rules into one file and delete the other",
                                          related: .init(file: rulesName, position: nil, keyPath: "", message: "the rules file that is used")))
        }

        let data: Data
        do {
            // A linked rules file is checked by its target: its size, and that it is a regular file.
            let target = rulesURL.resolvingSymlinksInPath()
            if let kind = RulesDecoder.nonRegularKind(atPath: target.path) {
                diagnostics.append(Diagnostic(.unreadableFile, file: rulesName, message: "the rules file is \(kind), not a regular file",
                                              fix: "replace it with a regular file"))
                return Result(bundle: StubBundle(template: template, folder: folder, rulesFile: rulesURL, rules: []), diagnostics: diagnostics)
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: target.path)
            if let size = attributes[.size] as? Int, size > Self.maximumRulesFileSize {
                diagnostics.append(Diagnostic(.unreadableFile, file: rulesName, message: "the rules file is \(size) bytes, more than the \(Self.maximumRulesFileSize >> 20) MB a rules file may have",
                                              fix: "split the rules across bundles"))
                return Result(bundle: StubBundle(template: template, folder: folder, rulesFile: rulesURL, rules: []), diagnostics: diagnostics)
            }
            data = try Data(contentsOf: rulesURL)
        } catch {
            diagnostics.append(Diagnostic(.unreadableFile, file: rulesName, message: "the rules file cannot be read", fix: "check its permissions"))
            return Result(bundle: StubBundle(template: template, folder: folder, rulesFile: rulesURL, rules: []), diagnostics: diagnostics)
        }

        let root: SourceValue
        do {
            root = try Self.parse(data, fileName: rulesFileName)
        } catch {
            let format = rulesFileName.hasSuffix(".json") ? "JSON" : "property list"
            diagnostics.append(Diagnostic(.malformedFile, file: rulesName, position: error.position, message: "malformed \(format): \(error.message)"))
            return Result(bundle: StubBundle(template: template, folder: folder, rulesFile: rulesURL, rules: []), diagnostics: diagnostics)
        }

        if let encoding = TextEncoding.wideEncoding(of: [UInt8](data.prefix(4))) {
            diagnostics.append(Diagnostic(.wideEncoding, file: rulesName, position: SourcePosition(line: 1, column: 1),
                                          message: "the rules file is encoded as \(encoding); StubKit reads it, as Apple's readers do, but diffs, code review and other tools expect UTF-8",
                                          fix: TextEncoding.saveAsUTF8))
        }
        var decoder = RulesDecoder(file: rulesName, folder: folder, options: options)
        let rules = decoder.decode(root)
        diagnostics += decoder.diagnostics
        if rules.isEmpty && !diagnostics.hasErrors {
            diagnostics.append(Diagnostic(.emptyBundle, file: rulesName, position: root.position, message: "the bundle has no rules",
                                          fix: "add a rule, or delete the bundle"))
        }
        let bundle = StubBundle(template: template, folder: folder, rulesFile: rulesURL, rules: rules)
        if options.checkResponseBodies { diagnostics += checkResponseBodies(of: rules) }
        if options.reportUnusedFiles { diagnostics += unusedFiles(in: folder, used: decoder.referencedFiles, rulesFiles: rulesFiles) }
        if options.reportRuleOverlaps { diagnostics += RuleOverlapValidator.overlaps(in: rules) }
        return Result(bundle: bundle, diagnostics: diagnostics)
    }

    /// Parses a rules file by its extension: JSON, or an XML or binary property list.
    package static func parse(_ data: Data, fileName: String) throws(SourceSyntaxError) -> SourceValue {
        if fileName.hasSuffix(".json") {
            return try JSONSourceParser().parse(data)
        }
        return try PropertyListSourceParser().parse(data)
    }

    func display(_ url: URL) -> String {
        url.displayPath(relativeTo: options.displayBase)
    }

    // MARK: Response bodies

    private func checkResponseBodies(of rules: [StubRule]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var checked = Set<String>()
        for rule in rules {
            guard case .file(let url) = rule.response.body, MediaType.isJSON(rule.response.effectiveContentType) else { continue }
            // A `.txt` file is text by its name: served with a JSON type it is what a backend really
            // sent (an anti-XSSI prefix, NDJSON, an error page), recorded as such, not JSON to check.
            guard url.pathExtension.lowercased() != "txt" else { continue }
            guard checked.insert(url.path).inserted else { continue }
            guard let data = try? Data(contentsOf: url, options: .mappedIfSafe) else { continue }
            // Served as it is: JSON sent over the wire must be UTF-8 (RFC 8259), whatever a rules file may be.
            if let encoding = TextEncoding.wideEncoding(of: [UInt8](data.prefix(4))) {
                diagnostics.append(Diagnostic(.invalidJSONResponse, file: display(url), position: SourcePosition(line: 1, column: 1), keyPath: "",
                                              message: "response file is encoded as \(encoding); the app receives these bytes as JSON, which must be UTF-8 (used by \(rule.source.keyPath))",
                                              fix: TextEncoding.saveAsUTF8))
                continue
            }
            do {
                _ = try JSONSourceParser().parse(data)
            } catch {
                diagnostics.append(Diagnostic(.invalidJSONResponse, file: display(url), position: error.position,
                                              keyPath: "", message: "response file is not valid JSON: \(error.message) (used by \(rule.source.keyPath) as \(rule.response.effectiveContentType ?? "JSON"))",
                                              fix: "fix the JSON, or set 'contentType' if the body is not JSON"))
            }
        }
        return diagnostics
    }

    // MARK: Unused files

    private func unusedFiles(in folder: URL, used: Set<String>, rulesFiles: [String]) -> [Diagnostic] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles]) else { return [] }
        var unused: [String] = []
        // A recording killed between writing a response file and the rules that use it (the next
        // recording removes it).
        let pending = Set(BundleWriter.pendingResponseFiles(in: folder).map { folder.appendingPathComponent($0).standardizedFileURL.path })
        for case let url as URL in enumerator {
            let standardized = url.standardizedFileURL
            if (try? standardized.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true { continue }
            if standardized.deletingLastPathComponent().path == folder.path
                && (rulesFiles.contains(standardized.lastPathComponent) || standardized.lastPathComponent == Self.recordedValuesFileName) { continue }
            if Self.isDocumentation(fileName: standardized.lastPathComponent) { continue }
            if !used.contains(standardized.path) && !pending.contains(standardized.path) { unused.append(display(standardized)) }
        }
        return unused.sorted().map {
            Diagnostic(.unusedFile, file: $0, message: "no rule uses this file", fix: "delete it, or name it in a rule's 'response'")
        }
    }
}
