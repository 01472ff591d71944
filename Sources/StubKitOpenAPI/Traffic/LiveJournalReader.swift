#if Tools
import Foundation
import StubKit

/// A live journal file (`STUB_JOURNAL_LIVE`) as traffic, a line at a time: each `request` line is an
/// entry; a line that cannot be read is a problem at its line (SK216) and reading goes on.
struct LiveJournalReader {
    let display: String

    /// Reads `head` (the start already read) and then the rest of the stream.
    func read(head: Data, rest stream: inout TrafficReader.ChunkStream, _ visit: (TrafficEntry) -> Void) throws(TrafficReader.ReadError) -> TrafficReader.Summary {
        var summary = TrafficReader.Summary(kind: .liveJournal)
        var buffer = head
        var lineNumber = 0
        // Inside a line longer than the limit: its bytes are dropped until its newline.
        var skippingLongLine = false
        let newline = UInt8(ascii: "\n")
        while true {
            var start = buffer.startIndex
            if skippingLongLine {
                if let end = buffer.firstIndex(of: newline) {
                    start = end + 1
                    skippingLongLine = false
                } else {
                    start = buffer.endIndex
                }
            }
            while !skippingLongLine, let end = buffer[start...].firstIndex(of: newline) {
                lineNumber += 1
                take(buffer[start..<end], line: lineNumber, into: &summary, visit)
                start = end + 1
            }
            // What is left is the start of a line: kept (moved to the front once per chunk, not per line).
            buffer.removeSubrange(buffer.startIndex..<start)
            if !skippingLongLine, buffer.count > TrafficReader.maximumLineBytes {
                lineNumber += 1
                summary.problems.append(Diagnostic(.unreadableTraffic, file: display, position: SourcePosition(line: lineNumber, column: 1),
                                                   message: "line \(lineNumber) is longer than \(TrafficReader.maximumLineBytes >> 20) MB; skipped"))
                buffer.removeAll(keepingCapacity: true)
                skippingLongLine = true
            }
            let chunk: Data?
            do { chunk = try stream.next(display) } catch {
                summary.problems.append(Diagnostic(.unreadableTraffic, file: display, message: "reading stopped after line \(lineNumber): \(error.description)"))
                return summary
            }
            guard let chunk else { break }
            buffer.append(chunk)
        }
        if !skippingLongLine, !buffer.isEmpty {
            lineNumber += 1
            take(buffer[...], line: lineNumber, into: &summary, visit)
        }
        return summary
    }

    private func take(_ line: Data.SubSequence, line lineNumber: Int, into summary: inout TrafficReader.Summary, _ visit: (TrafficEntry) -> Void) {
        if line.allSatisfy(TrafficReader.isBlank) { return }
        let position = SourcePosition(line: lineNumber, column: 1)
        let data = Data(line)
        do {
            guard case .request(let journal)? = try LiveJournalLine(decoding: data) else { return }
            summary.entries += 1
            visit(TrafficEntry(journal, index: summary.entries, source: .init(file: display, position: position)))
        } catch {
            let reason: String
            if String(data: data, encoding: .utf8) == nil {
                reason = "is not UTF-8 text"
            } else if case .failure(let syntax) = Result(catching: { () throws(SourceSyntaxError) in try JSONSourceParser().parse(data) }) {
                reason = "is not JSON (\(syntax.position.map { "column \($0.column): " } ?? "")\(syntax.message); cut off?)"
            } else {
                reason = "is not a live journal line (\(TrafficReader.describe(error)))"
            }
            summary.problems.append(Diagnostic(.unreadableTraffic, file: display, position: position, message: "line \(lineNumber) \(reason); skipped"))
        }
    }
}
#endif
