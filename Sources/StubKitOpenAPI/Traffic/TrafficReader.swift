#if Tools
import Foundation
import StubKit

/// Reads recorded traffic: a HAR file (StubKit's end-of-run export or any browser's or proxy's), a
/// live journal file (`STUB_JOURNAL_LIVE`, one JSON object a line), or a bundle folder written by
/// record mode. Which one is told by content: a folder is a bundle; a file whose first line is a
/// JSON object with `kind` is a live journal; any other JSON file is read as HAR.
///
/// A live journal is streamed a line at a time, so its size does not matter; a line that is not a
/// journal line (cut off, not JSON, not UTF-8, too long) is a problem at its line and reading goes on.
/// A HAR file is one JSON document: over ``maximumHARBytes`` it is refused, and one that does not
/// parse (cut off, not UTF-8) is refused naming its line and column, as nothing in it can be trusted.
package enum TrafficReader {
    package enum Kind: String, Sendable {
        case har = "HAR file"
        case liveJournal = "live journal"
        case bundle = "recorded bundle"
    }

    /// What reading gave besides the entries.
    package struct Summary: Sendable {
        package var kind: Kind
        package var entries = 0
        /// Lines or rules that could not be read (SK216) or placed (SK215).
        package var problems: [Diagnostic] = []
    }

    /// The input cannot be read at all.
    package struct ReadError: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    package static let maximumHARBytes = 512 << 20
    /// HAR files up to this size are parsed a second time for the line of each entry.
    static let maximumPositionedHARBytes = 64 << 20
    package static let maximumLineBytes = 16 << 20

    /// Reads the input at `url`, handing each entry to `visit` as it is read.
    package static func read(_ url: URL, display: String, _ visit: (TrafficEntry) -> Void) throws(ReadError) -> Summary {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ReadError(description: "\(display): no such file or folder")
        }
        if isDirectory.boolValue { return try TrafficBundleReader.read(url, display: display, visit) }
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw ReadError(description: "\(display): cannot be read") }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        if looksLikeLiveJournal(head) {
            try? handle.seek(toOffset: 0)
            return try readLiveJournal(handle, display: display, visit)
        }
        return try readHAR(url, display: display, visit)
    }

    /// Whether the first line is a JSON object with `kind` (a HAR file's first line is `{` alone, or
    /// the whole document on one line, which has no top-level `kind`).
    static func looksLikeLiveJournal(_ head: Data) -> Bool {
        if head.isEmpty { return true }
        let firstLine = head.prefix { $0 != UInt8(ascii: "\n") }
        guard let object = try? JSONSerialization.jsonObject(with: firstLine) as? [String: Any] else { return false }
        return object["kind"] != nil && object["log"] == nil
    }

    // MARK: Live journal

    private static func readLiveJournal(_ handle: FileHandle, display: String, _ visit: (TrafficEntry) -> Void) throws(ReadError) -> Summary {
        var summary = Summary(kind: .liveJournal)
        var pending = Data()
        var lineNumber = 0
        var skippingLongLine = false
        func take(_ line: Data) {
            lineNumber += 1
            if skippingLongLine { skippingLongLine = false; return }
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) { return }
            let position = SourcePosition(line: lineNumber, column: 1)
            do {
                guard case .request(let journal)? = try LiveJournalLine(decoding: line) else { return }
                summary.entries += 1
                visit(TrafficEntry(journal, index: summary.entries, source: .init(file: display, position: position)))
            } catch {
                let reason: String
                if String(data: line, encoding: .utf8) == nil {
                    reason = "is not UTF-8 text"
                } else if case .failure(let syntax) = Result(catching: { () throws(SourceSyntaxError) in try JSONSourceParser().parse(line) }) {
                    reason = "is not JSON (\(syntax.position.map { "column \($0.column): " } ?? "")\(syntax.message); cut off?)"
                } else {
                    reason = "is not a live journal line (\(describe(error)))"
                }
                summary.problems.append(Diagnostic(.unreadableTraffic, file: display, position: position,
                                                   message: "line \(lineNumber) \(reason); skipped"))
            }
        }
        while true {
            let chunk: Data
            do { chunk = try handle.read(upToCount: 256 * 1024) ?? Data() } catch {
                summary.problems.append(Diagnostic(.unreadableTraffic, file: display, message: "reading stopped after line \(lineNumber): \(error.localizedDescription)"))
                break
            }
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                take(pending[pending.startIndex..<newline])
                pending = Data(pending[(newline + 1)...])
            }
            if pending.count > maximumLineBytes {
                summary.problems.append(Diagnostic(.unreadableTraffic, file: display, position: SourcePosition(line: lineNumber + 1, column: 1),
                                                   message: "line \(lineNumber + 1) is longer than \(maximumLineBytes >> 20) MB; skipped"))
                pending = Data()
                skippingLongLine = true
            }
        }
        if !pending.isEmpty { take(pending) }
        return summary
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            if let underlying = context.underlyingError as NSError? { return underlying.userInfo[NSDebugDescriptionErrorKey] as? String ?? "not JSON" }
            return context.debugDescription
        }
        if case DecodingError.keyNotFound(let key, _) = error { return "no '\(key.stringValue)'" }
        if case DecodingError.typeMismatch(_, let context) = error { return "wrong type at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'" }
        return "not JSON"
    }

    // MARK: HAR

    private static func readHAR(_ url: URL, display: String, _ visit: (TrafficEntry) -> Void) throws(ReadError) -> Summary {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        guard size <= maximumHARBytes else {
            throw ReadError(description: "\(display): \(size >> 20) MB is more than the \(maximumHARBytes >> 20) MB a HAR file may be; export fewer entries")
        }
        guard let data = try? Data(contentsOf: url) else { throw ReadError(description: "\(display): cannot be read") }
        // The source tree gives each entry's line, and says where a broken document breaks.
        var tree: SourceValue? = nil
        if size <= maximumPositionedHARBytes || (try? JSONSerialization.jsonObject(with: data)) == nil {
            do { tree = try JSONSourceParser().parse(data) } catch {
                let at = error.position.map { ":\($0.line):\($0.column)" } ?? ""
                throw ReadError(description: "\(display)\(at): not a HAR file or a live journal: \(error.message)")
            }
        }
        let har: HAR
        do { har = try JSONDecoder().decode(HAR.self, from: data) } catch {
            throw ReadError(description: "\(display): not a HAR file (\(describe(error)))")
        }
        var summary = Summary(kind: .har)
        let positions = tree?["log"]?["entries"]?.arrayValue
        for (i, harEntry) in har.log.entries.enumerated() {
            let source = TrafficEntry.Source(file: display, position: positions.flatMap { i < $0.count ? $0[i].position : nil }, keyPath: "log.entries[\(i)]")
            guard let request = harEntry.request, let urlText = request.url, let requestURL = URL(string: urlText), requestURL.host != nil else {
                summary.problems.append(Diagnostic(.trafficNotChecked, file: display, position: source.position, keyPath: source.keyPath,
                                                   message: "entry \(i + 1) has no absolute request URL; not checked"))
                continue
            }
            summary.entries += 1
            let truncated = harEntry.stubkit?.truncated ?? []
            var entry = TrafficEntry(index: i + 1, method: request.method ?? "GET", url: requestURL,
                                     headers: (request.headers ?? []).compactMap { h in h.name.map { .init(name: $0, value: h.value ?? "") } },
                                     body: body(request.postData?.text, encoding: request.postData?.encoding), response: nil, source: source)
            if entry.header("Content-Type") == nil, let mime = request.postData?.mimeType, !mime.isEmpty {
                entry.headers.append(.init(name: "Content-Type", value: mime))
            }
            entry.bodyTruncated = truncated.contains("request")
            if let response = harEntry.response, let status = response.status?.value, status > 0 {
                // StubKit marks what it answered itself; a HAR from anywhere else is all real traffic.
                let isReal = harEntry.stubkit.map { $0.passedThrough == true || $0.recorded != nil } ?? true
                var headers = (response.headers ?? []).compactMap { h in h.name.map { TrafficEntry.Header(name: $0, value: h.value ?? "") } }
                if !headers.contains(where: { $0.name.lowercased() == "content-type" }), let mime = response.content?.mimeType, !mime.isEmpty {
                    headers.append(.init(name: "Content-Type", value: mime))
                }
                entry.response = .init(status: status, headers: headers, body: body(response.content?.text, encoding: response.content?.encoding),
                                       bodyTruncated: truncated.contains("response"), isReal: isReal)
            }
            visit(entry)
        }
        return summary
    }

    private static func body(_ text: String?, encoding: String?) -> Data? {
        guard let text else { return nil }
        if encoding?.lowercased() == "base64" { return Data(base64Encoded: text, options: .ignoreUnknownCharacters) }
        return Data(text.utf8)
    }
}
#endif
