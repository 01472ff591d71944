import Foundation
import StubKit

/// The runner's end of runtime control: the listening socket, the one connection whose hello carries
/// the token, and the commands waiting for their answers.
///
/// The listener is a dispatch read source (accepting when the kernel says a connection waits); each
/// newcomer's hello is read on a thread of its own with a time limit, and the app's connection on a
/// dedicated thread blocked in `recv`. Nothing polls. Once the app is in, the listener closes: no
/// other process can connect, and a second app given the same settings is refused.
final class ControlSession: Sendable {
    typealias Outcome = Result<ControlReply, AppControlError>

    let settings: ControlLaunchSettings
    private let listener: LoopbackSocket
    /// Set once in init, then only cancelled, which Dispatch allows from any thread.
    nonisolated(unsafe) private let source: any DispatchSourceRead
    private let state = Locked(State())
    /// Serializes writes, so two commands sent at once never interleave their bytes.
    private let writing = Locked(())

    private struct Waiter {
        var label: String
        var line: Data
        var continuation: CheckedContinuation<ControlReply, any Error>
        var sent = false
    }

    private struct State {
        var connection: LoopbackSocket?
        /// Why no command can be answered any more; set once, sharpened by the exit status.
        var ended: String?
        var nextID = 1
        var waiters: [Int: Waiter] = [:]
        /// Cancelled before their waiter was registered.
        var cancelled: Set<Int> = []
    }

    /// How long a hello may take once a process has connected.
    static let helloLimit = 10

    init() throws {
        let (listener, port) = try LoopbackSocket.listen()
        listener.setNonBlocking()
        self.listener = listener
        settings = ControlLaunchSettings(port: port, token: ControlLaunchSettings.randomToken())
        source = DispatchSource.makeReadSource(fileDescriptor: listener.descriptor, queue: DispatchQueue(label: "StubKit runtime control"))
        source.setCancelHandler { listener.close() }
        source.setEventHandler { [weak self] in self?.acceptWaiting() }
        source.resume()
    }

    deinit {
        source.cancel()
    }

    private func acceptWaiting() {
        while let candidate = listener.accept() {
            let thread = Thread { [weak self] in
                guard let self, self.isAuthentic(candidate) else { candidate.close(); return }
                self.admit(candidate)
            }
            thread.name = "StubKit runtime control hello"
            thread.start()
        }
    }

    /// Whether the newcomer's first line is a hello with this session's token (compared in constant time).
    private func isAuthentic(_ candidate: LoopbackSocket) -> Bool {
        candidate.setReceiveTimeout(Self.helloLimit)
        var reader = ControlLineReader(limit: 4096)
        while true {
            let bytes = candidate.receive()
            if bytes.isEmpty { return false }
            guard let first = reader.append(bytes).first else { continue }
            guard case .line(let line) = first, let hello = try? ControlProtocol.decodeHello(line) else { return false }
            let given = Array(hello.token.utf8), expected = Array(settings.token.utf8)
            guard given.count == expected.count else { return false }
            return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }

    /// The app is in: stop listening, send what waited for it, and read its answers.
    private func admit(_ connection: LoopbackSocket) {
        let admitted = state.withLock { state -> Bool in
            guard state.connection == nil, state.ended == nil else { return false }
            state.connection = connection
            return true
        }
        guard admitted else { connection.close(); return }
        source.cancel()
        connection.setReceiveTimeout(0)
        let thread = Thread { [weak self] in self?.readReplies(from: connection) }
        thread.name = "StubKit runtime control"
        thread.start()
        sendWaiting()
    }

    /// The only place the app's connection is closed: ``end(_:sharpening:)`` shuts it down, which
    /// wakes this thread, so the descriptor is never closed under a blocked read.
    private func readReplies(from connection: LoopbackSocket) {
        defer { connection.close() }
        var reader = ControlLineReader()
        while true {
            let bytes = connection.receive()
            if bytes.isEmpty { break }
            for item in reader.append(bytes) {
                switch item {
                case .line(let line):
                    do {
                        let reply = try ControlProtocol.decodeReply(line)
                        guard let id = reply.id else {
                            end("the app could not read a command: \(reply.error ?? "no reason given")")
                            return
                        }
                        finish(id, .success(reply))
                    } catch {
                        end("the app sent a broken answer: \(error.description)")
                        return
                    }
                case .tooLong(let count):
                    end("the app sent an answer over the size limit: \(reader.tooLongDescription(count))")
                    return
                }
            }
        }
        end(reader.unfinished.map { "the app closed the control connection: \($0)" } ?? "the app closed the control connection (it exited or stopped)")
    }

    // MARK: Commands

    /// Sends a command and waits for the app's answer, `timeout` seconds at most.
    func perform(_ command: ControlCommand, label: String, timeout: TimeInterval) async throws -> ControlReply {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ControlReply, any Error>) in
                let line = ControlProtocol.encode(command, id: id)
                let refusal: (any Error)? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return CancellationError() }
                    if let ended = state.ended { return AppControlError(command: label, message: ended) }
                    state.waiters[id] = Waiter(label: label, line: line, continuation: continuation)
                    return nil
                }
                if let refusal { continuation.resume(throwing: refusal); return }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
                    self?.timeOut(id, after: timeout)
                }
                sendWaiting()
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let waiter = state.waiters.removeValue(forKey: id) else { state.cancelled.insert(id); return nil }
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Writes every command not yet sent, in id order, once the app is connected.
    private func sendWaiting() {
        writing.withLock { _ in
            let (connection, lines) = state.withLock { state -> (LoopbackSocket?, [Data]) in
                guard let connection = state.connection, state.ended == nil else { return (nil, []) }
                var lines: [Data] = []
                for id in state.waiters.keys.sorted() where !state.waiters[id]!.sent {
                    state.waiters[id]!.sent = true
                    lines.append(state.waiters[id]!.line)
                }
                return (connection, lines)
            }
            guard let connection else { return }
            for line in lines where !connection.send(line) {
                // The reader sees the closed connection and ends the session with the reason.
                return
            }
        }
    }

    private func timeOut(_ id: Int, after timeout: TimeInterval) {
        let (waiter, connected) = state.withLock { ($0.waiters.removeValue(forKey: id), $0.connection != nil) }
        guard let waiter else { return }
        let message = connected
            ? "the app did not answer within \(timeout) s"
            : "the app did not connect for runtime control within \(timeout) s (was it launched with the control's launch environment, and does it call StubActivation.activate()?)"
        waiter.continuation.resume(throwing: AppControlError(command: waiter.label, message: message))
    }

    private func finish(_ id: Int, _ outcome: Result<ControlReply, any Error>) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(with: outcome)
    }

    /// Ends the session: every waiting command fails with `reason`, and later ones at once. An exit
    /// status that arrives after the closed connection replaces the vaguer reason.
    func end(_ reason: String, sharpening: Bool = false) {
        let (waiters, connection) = state.withLock { state -> ([Waiter], LoopbackSocket?) in
            if state.ended == nil || sharpening { state.ended = reason }
            let waiters = Array(state.waiters.values)
            state.waiters = [:]
            let connection = state.connection
            state.connection = nil
            return (waiters, connection)
        }
        source.cancel()
        connection?.shutdown()
        for waiter in waiters { waiter.continuation.resume(throwing: AppControlError(command: waiter.label, message: reason)) }
    }
}
