#if Tools
import Foundation
import StubKit
import StubKitDocuments

/// Reads files in other stub and traffic formats and writes them as one bundle through StubKit's
/// bundle writer, reporting whatever could not be carried over.
///
/// Reading and writing are separate steps, so unreadable input stops an import before anything is
/// written: `read` collects every unreadable file, `write` never throws for one bad entry (it notes it).
package struct BundleImporter: Sendable {
    /// The format of every input; `nil` detects it per file from the content.
    package var format: ImportFormat?
    /// Header, query-item and JSON-field names redacted on top of the defaults (as `STUB_RECORD_REDACT`).
    package var redact: [String]
    /// Default names not to redact (as `STUB_RECORD_KEEP`).
    package var keep: [String]

    package init(format: ImportFormat? = nil, redact: [String] = [], keep: [String] = []) {
        self.format = format
        self.redact = redact
        self.keep = keep
    }

    // MARK: Reading

    /// Reads files and folders (walked recursively, in name order; WireMock `__files` are bodies, not sources).
    ///
    /// - Returns: one batch per source file, and an error per file that cannot be read at all.
    package func read(_ inputs: [URL]) -> (batches: [ImportBatch], errors: [ImportError]) {
        var batches: [ImportBatch] = [], errors: [ImportError] = []
        var budget = InflateBudget()
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input.path, isDirectory: &isDirectory) else {
                errors.append(ImportError(file: input.path, "no such file or folder"))
                continue
            }
            let files = isDirectory.boolValue ? Self.sourceFiles(in: input) : [input]
            if files.isEmpty {
                errors.append(ImportError(file: input.path, "holds no files to import: no WireMock mappings/ folder at any depth, and no HAR, WireMock, Mocktail or cassette file (hidden folders, \(WireMockProject.skippedFolders.sorted().joined(separator: ", ")) and __files are not searched)"))
            }
            let read = read(files, walked: isDirectory.boolValue, budget: &budget)
            batches += read.batches
            errors += read.errors
            if !read.skipped.isEmpty {
                var batch = ImportBatch(format: format ?? .har, file: input.path)
                for file in read.skipped { batch.note(file.path, "not a format stubkit imports (HAR, WireMock, Mocktail, cassette); skipped") }
                batches.append(batch)
            }
        }
        return (batches, errors)
    }

    private func read(_ files: [URL], walked: Bool, budget: inout InflateBudget) -> (batches: [ImportBatch], skipped: [URL], errors: [ImportError]) {
        var batches: [ImportBatch] = [], skipped: [URL] = [], errors: [ImportError] = []
        for file in files {
            do throws(ImportError) {
                if let batch = try read(file, walked: walked, budget: &budget) { batches.append(batch) } else { skipped.append(file) }
            } catch {
                errors.append(error)
            }
        }
        return (batches, skipped, errors)
    }

    /// One file: `nil` when a walked folder's file is in no known format.
    func read(_ file: URL, walked: Bool, budget: inout InflateBudget) throws(ImportError) -> ImportBatch? {
        let name = file.path
        let data: Data
        do { data = try Data(contentsOf: file) } catch { throw ImportError(file: name, "cannot be read: \(error.localizedDescription)") }
        // Parsed once, for detection and for reading (a parse is the costly part, and bounded).
        var yaml: Any? = nil
        if ImportFormat.isYAML(file.lastPathComponent), format == nil || format == .vcr, !DocumentReader.looksLikeJSON(data) {
            yaml = try SourceDocument.yaml(data, file: name)
        }
        guard let format = format ?? ImportFormat.detect(data, fileName: file.lastPathComponent, yaml: yaml) else {
            if walked { return nil }
            throw ImportError(file: name, "not a format stubkit imports: expected a HAR file, WireMock mapping, Mocktail .tail or cassette (give --format to say which)")
        }
        budget.allow(data.count)
        let batch: ImportBatch
        switch format {
        case .har: batch = try HARReader.read(data, file: name, inflateLimit: budget.left)
        case .wiremock: batch = try WireMockReader.read(data, file: name, filesRoot: WireMockReader.filesRoot(for: file))
        case .mocktail: batch = try MocktailReader.read(data, file: name)
        case .vcr: batch = try CassetteReader.read(data, file: name, yaml: yaml, inflateLimit: budget.left)
        }
        budget.spent += batch.inflatedBytes
        return batch
    }

    /// How many bytes compressed bodies may inflate to in one import: a floor, plus a multiple of the
    /// input read so far (a zip bomb inflates a thousandfold; real bodies about tenfold).
    struct InflateBudget {
        static let floor = 64 << 20
        static let perInputByte = 100
        var allowed = floor
        var spent = 0
        var left: Int { max(0, allowed - spent) }
        mutating func allow(_ inputBytes: Int) { allowed += inputBytes.multipliedReportingOverflow(by: Self.perInputByte).partialValue }
    }

    /// The files a folder walk reads: at any depth, in path order, without hidden files and folders,
    /// ``WireMockProject/skippedFolders`` (build output, dependencies) and WireMock `__files` (bodies).
    static func sourceFiles(in folder: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey, .isDirectoryKey], options: [.skipsHiddenFiles]) else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator {
            if url.lastPathComponent == "__files" || WireMockProject.skippedFolders.contains(url.lastPathComponent),
               (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                enumerator.skipDescendants()
                continue
            }
            if ["md", "txt"].contains(url.pathExtension.lowercased()) { continue }
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }

    // MARK: Writing

    /// The entries, WireMock stubs latest first: of the mappings that match a request (at one priority),
    /// WireMock serves the one it loaded last (files in name order, a file's `mappings` in order), and
    /// StubKit the first rule. A mapping whose request a later one repeats exactly is never served; it
    /// is left out and noted.
    static func inWireMockOrder(_ batches: [ImportBatch]) -> (entries: [ImportedEntry], notes: [ImportNote]) {
        var entries: [ImportedEntry] = [], stubs: [ImportedEntry.Stub] = [], firstStub: Int?
        for batch in batches {
            for entry in batch.entries {
                if batch.format == .wiremock, case .stub(let stub) = entry {
                    if firstStub == nil { firstStub = entries.count }
                    stubs.append(stub)
                } else {
                    entries.append(entry)
                }
            }
        }
        var kept: [ImportedEntry] = [], notes: [ImportNote] = []
        var servedBy: [String: String] = [:]
        for stub in stubs.reversed() {
            guard let request = stub.matchIdentity else {
                kept.append(.stub(stub))
                continue
            }
            if let later = servedBy[request] {
                notes.append(ImportNote(source: stub.source, message: "never served: the later mapping \(later) has the same request, and WireMock serves the one loaded last; not imported"))
                continue
            }
            servedBy[request] = stub.source
            kept.append(.stub(stub))
        }
        entries.insert(contentsOf: kept, at: firstStub ?? entries.count)
        return (entries, notes)
    }

    /// Exchanges in the order the writer lists their rules (endpoints where first seen, more query
    /// items or a body first; repeats in recorded order), so response files are named in rule order
    /// and an export of the bundle imports back to the same names. Stubs keep their order.
    static func inRuleOrder(_ entries: [ImportedEntry]) -> [ImportedEntry] {
        var firstSeen: [String: Int] = [:]
        let keyed = entries.enumerated().map { offset, entry -> (endpoint: Int, specificity: Int, offset: Int, entry: ImportedEntry) in
            guard case .exchange(let exchange) = entry else { return (offset, 0, offset, entry) }
            let request = exchange.request
            let endpoint = "\(request.method) \(request.host) \(request.url.path(percentEncoded: true))"
            if firstSeen[endpoint] == nil { firstSeen[endpoint] = offset }
            let specificity = Set(request.queryItems.map(\.name)).count + (request.body?.isEmpty == false ? 1 : 0)
            return (firstSeen[endpoint]!, specificity, offset, entry)
        }
        return keyed.sorted {
            if $0.endpoint != $1.endpoint { return $0.endpoint < $1.endpoint }
            if $0.specificity != $1.specificity { return $0.specificity > $1.specificity }
            return $0.offset < $1.offset
        }.map(\.entry)
    }

    /// Writes the batches as one bundle in `bundle`, and `IMPORT-NOTES.md` beside its rules.
    ///
    /// - Parameters:
    ///   - replacing: replace what `bundle` holds when it is a bundle; without it, an existing file or
    ///     non-empty folder there is refused (nothing is deleted).
    ///   - inputs: the files and folders read; a bundle folder that holds one of them, or lies inside
    ///     one, is refused even when replacing (replacing would delete what is being imported).
    /// - Throws: ``ImportError`` naming the folder when it cannot or may not be written.
    package func write(_ batches: [ImportBatch], to bundle: URL, replacing: Bool = false, inputs: [URL] = []) throws(ImportError) -> ImportReport {
        try Self.checkDestination(bundle, replacing: replacing, inputs: inputs + batches.map { URL(fileURLWithPath: $0.file) })
        var report = ImportReport(bundle: bundle.standardizedFileURL)
        for batch in batches {
            report.notes += batch.notes
            let onlySkipped = batch.entries.isEmpty && !batch.notes.isEmpty && batch.notes.allSatisfy { $0.message.hasSuffix("skipped") }
            if !onlySkipped {
                report.files.append(.init(file: batch.file, format: batch.format, entries: batch.entries.count))
            }
        }
        let (loaded, shadowed) = Self.inWireMockOrder(batches)
        report.notes += shadowed
        let entries = Self.inRuleOrder(loaded)
        let recorder: Recorder?
        let writer: BundleWriter
        do {
            if entries.contains(where: { if case .stub = $0 { return false } else { return true } }) {
                // Recorded traffic goes through the recorder: the same redaction and conditions as a recording.
                let started = entries.compactMap { entry -> Date? in
                    switch entry {
                    case .exchange(let exchange): return exchange.startedAt
                    case .webSocket(let webSocket): return webSocket.recording.openedAt
                    case .stub: return nil
                    }
                }.min()
                let configuration = RecorderConfiguration(template: bundle.lastPathComponent, folder: bundle.deletingLastPathComponent(), mode: .all,
                                                        redact: redact, keep: keep)
                let made = try Recorder(configuration: configuration, recordedAt: started)
                recorder = made
                writer = made.writer
            } else {
                recorder = nil
                writer = try BundleWriter(folder: bundle, replacing: true)
            }
        } catch {
            throw ImportError(file: error.path, error.reason.replacingOccurrences(of: "recording in mode 'all'", with: "importing"))
        }
        let redactor = Redactor(redact: redact, keep: keep)
        writer.beginBatch()
        for entry in entries {
            switch entry {
            case .exchange(let exchange):
                if case .failure(let error) = recorder!.record(imported: exchange.request, status: exchange.status, headers: exchange.headers, body: exchange.body) {
                    report.notes.append(ImportNote(source: exchange.source, message: "not written: \(error.description)"))
                }
            case .webSocket(let webSocket):
                switch recorder!.record(webSocket.recording) {
                case .success(let outcome):
                    report.notes += outcome.notes.map { ImportNote(source: webSocket.source, message: $0) }
                case .failure(let error):
                    report.notes.append(ImportNote(source: webSocket.source, message: "not written: \(error.description)"))
                }
            case .stub(var stub):
                let (headers, count) = redactor.headers(stub.response.headers)
                stub.response.headers = headers
                report.redacted += count
                do { try writer.append(stub.conditions, stub.response) } catch {
                    report.notes.append(ImportNote(source: stub.source, message: "not written: \(error.description)"))
                }
            }
        }
        do { try writer.endBatch() } catch { throw ImportError(file: error.path, error.reason) }
        report.rules = writer.ruleCount
        report.redacted += recorder?.summary.redacted ?? 0
        let notesFile = writer.folder.appendingPathComponent("IMPORT-NOTES.md")
        do { try Data(report.markdown.utf8).write(to: notesFile) } catch {
            throw ImportError(file: notesFile.path, "cannot be written: \(error.localizedDescription)")
        }
        return report
    }
}
#endif
