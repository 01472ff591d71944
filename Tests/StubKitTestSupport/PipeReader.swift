import Foundation

/// Reads one pipe on its own thread, keeping everything read and waking waiters at each line.
final class PipeReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var data = Data()
    private var ended = false

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                condition.lock()
                if chunk.isEmpty { ended = true } else { data.append(chunk) }
                condition.broadcast()
                condition.unlock()
                if chunk.isEmpty { return }
            }
        }
        thread.start()
    }

    var text: String {
        condition.lock(); defer { condition.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    /// The first complete line containing `text`, or nil when the pipe ends or `limit` passes first.
    func waitForLine(containing text: String, limit: TimeInterval) -> String? {
        let deadline = Date().addingTimeInterval(limit)
        condition.lock(); defer { condition.unlock() }
        while true {
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            if let line = lines.first(where: { $0.contains(text) }) { return String(line) }
            if ended || !condition.wait(until: deadline) { return nil }
        }
    }

    /// Everything the pipe carried once it has closed, or what came before `limit` (`ended` false).
    func waitForEnd(limit: TimeInterval = 60) -> (text: String, ended: Bool) {
        let (data, ended) = waitForEndData(limit: limit)
        return (String(decoding: data, as: UTF8.self), ended)
    }

    /// The bytes the pipe carried once it has closed, or what came before `limit` (`ended` false).
    func waitForEndData(limit: TimeInterval = 60) -> (data: Data, ended: Bool) {
        let deadline = Date().addingTimeInterval(limit)
        condition.lock(); defer { condition.unlock() }
        while !ended && condition.wait(until: deadline) {}
        return (data, ended)
    }
}
