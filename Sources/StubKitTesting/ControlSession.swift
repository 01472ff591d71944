import Foundation
import StubKit

/// The runner's end of runtime control: the listening socket, the app connected now, and the
/// commands waiting for their answers.
///
/// The listener is a dispatch read source (accepting when the kernel says a connection waits) and
/// stays open for the life of the session, so a test can launch the app again with the same
/// control; one app is connected at a time, and another that says hello meanwhile is refused. Each
/// newcomer's hello is read on a thread of its own with a time limit (a few at a time), the app's
/// answers on a dedicated thread blocked in `recv`, and commands are written from a serial queue
/// with the call's time limit, so an app that stops reading never blocks Swift's cooperative threads.
final class ControlSession: Sendable {
    let settings: ControlLaunchSettings
    private let listener: LoopbackSocket
    /// Set once in init, then only cancelled, which Dispatch allows from any thread.
    nonisolated(unsafe) private let source: any DispatchSourceRead
    private let state = Locked(State())
    /// Writes commands in order, one at a time, off Swift's cooperative threads.
    private let writer = DispatchQueue(label: "StubKit runtime control writer")
    /// Runs on each accepted descriptor before it is made blocking (tests play a BSD kernel here).
    private let acceptHook: (@Sendable (Int32) -> Void)?

    private struct Waiter {
        var label: String
        var line: Data
        var deadline: Date
        var continuation: CheckedContinuation<ControlReply, any Error>
        var sent = false
    }

    private struct State {
        var link: ControlLink?
        /// Why calls fail at once: the app exited (until the next launch) or the control was released.
        var ended: String?
        var released = false
        /// Why the last connection ended or was refused, for the message of a call that waited in vain.
        var lastTrouble: String?
        var hellosWaiting = 0
        /// The command being written now, whose call's time-out means the app stopped reading.
        var writing: Int?
        var nextID = 1
        var waiters: [Int: Waiter] = [:]
        /// Cancelled before their waiter was registered.
        var cancelled: Set<Int> = []
    }

    /// How long a hello may take once a process has connected.
    static let helloLimit = 10
    /// How many connections may wait to say hello at once; more are closed at once.
    static let hellosWaitingLimit = 8

    init(acceptHook: (@Sendable (Int32) -> Void)? = nil) throws {
        let (listener, port) = try LoopbackSocket.listen()
        listener.setNonBlocking()
        self.listener = listener
        self.acceptHook = acceptHook
        settings = ControlLaunchSettings(port: port, token: ControlLaunchSettings.randomToken(), runnerToken: ControlLaunchSettings.randomToken())
        source = DispatchSource.makeReadSource(fileDescriptor: listener.descriptor, queue: DispatchQueue(label: "StubKit runtime control"))
        source.setCancelHandler { listener.close() }
        source.setEventHandler { [weak self] in self?.acceptWaiting() }
        source.resume()
    }

    deinit {
        source.cancel()
    }

    // MARK: Connections

    private func acceptWaiting() {
        while let candidate = listener.accept(inherited: acceptHook) {
            let admitted = state.withLock { state -> Bool in
                guard state.hellosWaiting < Self.hellosWaitingLimit else { return false }
                state.hellosWaiting += 1
                return true
            }
            guard admitted else { candidate.close(); continue }
            let thread = Thread { [weak self] in
                guard let self else { candidate.close(); return }
                let refusal = self.admit(candidate)
                self.state.withLock { state in
                    state.hellosWaiting -= 1
                    if let refusal { state.lastTrouble = "the last connection was refused: \(refusal)" }
                }
                if let refusal {
                    _ = candidate.send(ControlProtocol.encodeRefusal(refusal), within: TimeInterval(Self.helloLimit))
                    candidate.close()
                }
            }
            thread.name = "StubKit runtime control hello"
            thread.start()
        }
    }

    /// Reads the newcomer's hello and lets it in; the reason when it is refused (never a token).
    private func admit(_ candidate: LoopbackSocket) -> String? {
        candidate.setReceiveTimeout(Self.helloLimit)
        var reader = ControlLineReader(limit: 4096)
        var first: ControlLineReader.Item?
        while first == nil {
            let bytes: Data
            do { bytes = try candidate.receive() } catch { return "no hello: \(error.description)" }
            if bytes.isEmpty { return "it closed the connection before its hello" }
            first = reader.append(bytes).first
        }
        guard case .line(let line) = first else { return "its hello is over the size limit" }
        let hello: (token: String, pid: Int32)
        do { hello = try ControlProtocol.decodeHello(line) } catch { return error.description }
        guard ControlProtocol.sameToken(hello.token, settings.token) else {
            return "the hello of process \(hello.pid) does not carry this runner's token (was the app launched with another AppControl's environment?)"
        }
        let link = ControlLink(candidate)
        let busy = state.withLock { state -> String? in
            if state.released { return "the runner's AppControl was released" }
            if state.link != nil { return "another app is connected to this AppControl (one at a time)" }
            return nil
        }
        if let busy { return busy }
        // The welcome goes out before the link is published, so no command can precede it.
        guard candidate.send(ControlProtocol.encodeWelcome(runnerToken: settings.runnerToken), within: TimeInterval(Self.helloLimit)) == .sent else {
            return "it did not read the runner's welcome"
        }
        let published = state.withLock { state -> Bool in
            guard state.link == nil, !state.released else { return false }
            state.link = link
            state.ended = nil
            return true
        }
        guard published else { return "another app is connected to this AppControl (one at a time)" }
        candidate.setReceiveTimeout(0)
        let thread = Thread { [weak self] in
            let reason = Self.readReplies(from: link) { id, reply in self?.finish(id, .success(reply)) }
            link.close()
            self?.disconnected(link, reason: reason)
        }
        thread.name = "StubKit runtime control"
        thread.start()
        sendWaiting()
        return nil
    }

    /// Reads the app's answers until the connection ends; why it ended.
    private static func readReplies(from link: ControlLink, answer: (Int, ControlReply) -> Void) -> String {
        var reader = ControlLineReader()
        while true {
            let bytes: Data
            do { bytes = try link.socket.receive() } catch { return "the control connection failed: \(error.description)" }
            if bytes.isEmpty { break }
            for item in reader.append(bytes) {
                switch item {
                case .line(let line):
                    do {
                        let reply = try ControlProtocol.decodeReply(line)
                        guard let id = reply.id else { return "the app could not read a command: \(reply.error ?? "no reason given")" }
                        answer(id, reply)
                    } catch {
                        return "the app sent a broken answer: \(error.description)"
                    }
                case .tooLong(let count):
                    return "the app sent an answer over the size limit: \(reader.tooLongDescription(count))"
                }
            }
        }
        return reader.unfinished.map { "the app closed the control connection: \($0)" } ?? "the app closed the control connection (it exited or stopped)"
    }

    /// The app's connection ended: the commands it was sent fail with `reason`; those not sent yet
    /// wait for the next app to connect.
    private func disconnected(_ link: ControlLink, reason: String) {
        let failed = state.withLock { state -> [Waiter] in
            guard state.link === link else { return [] }
            state.link = nil
            state.lastTrouble = "the previous connection ended: \(reason)"
            let sent = state.waiters.filter { $0.value.sent }
            for id in sent.keys { state.waiters[id] = nil }
            return Array(sent.values)
        }
        link.shutdown()
        for waiter in failed { waiter.continuation.resume(throwing: AppControlError(command: waiter.label, message: reason)) }
    }

    // MARK: Commands

    /// Sends a command and waits for the app's answer, `timeout` seconds at most.
    func perform(_ command: ControlCommand, label: String, timeout: TimeInterval) async throws -> ControlReply {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let line = ControlProtocol.encode(command, id: id)
        // Over the limit the app would skip it and the session could not tell which call it was.
        guard line.count - 1 <= ControlProtocol.maximumLineLength else {
            throw AppControlError(command: label, message: "the command is \(line.count - 1) bytes, over the control message limit of \(ControlProtocol.maximumLineLength) bytes: not sent (serve a large body from a bundle file instead)")
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ControlReply, any Error>) in
                let refusal: (any Error)? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return CancellationError() }
                    if let ended = state.ended { return AppControlError(command: label, message: ended) }
                    state.waiters[id] = Waiter(label: label, line: line, deadline: Date().addingTimeInterval(timeout), continuation: continuation)
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

    /// Writes every command not yet sent, in id order, once an app is connected, on the writer queue.
    private func sendWaiting() {
        writer.async { [weak self] in self?.writeWaiting() }
    }

    private func writeWaiting() {
        while true {
            let next = state.withLock { state -> (ControlLink, Int, Data, Date)? in
                guard let link = state.link, let id = state.waiters.keys.filter({ !state.waiters[$0]!.sent }).min() else { return nil }
                state.waiters[id]!.sent = true
                state.writing = id
                return (link, id, state.waiters[id]!.line, state.waiters[id]!.deadline)
            }
            guard let (link, id, line, deadline) = next else { return }
            let outcome = link.socket.send(line, within: deadline.timeIntervalSinceNow)
            state.withLock { $0.writing = nil }
            switch outcome {
            case .sent:
                continue
            case .timedOut:
                // The app stopped reading; later commands would queue behind this one forever.
                disconnected(link, reason: "the app stopped reading commands (it may be suspended, stopped in a debugger or busy): command \(id) of \(line.count) bytes was not taken within its time-out; the control connection is closed")
                return
            case .failed:
                // The reader sees the closed connection and fails what was sent with the reason.
                return
            }
        }
    }

    private func timeOut(_ id: Int, after timeout: TimeInterval) {
        let (waiter, connected, stuck, trouble) = state.withLock { state in
            (state.waiters.removeValue(forKey: id), state.link != nil, state.writing == id, state.lastTrouble)
        }
        guard let waiter else { return }
        let message: String
        if stuck {
            message = "the app did not read the command within \(timeout) s (it may be suspended, stopped in a debugger or busy)"
        } else if connected || waiter.sent {
            message = "the app did not answer within \(timeout) s"
        } else {
            message = "the app did not connect for runtime control within \(timeout) s (was it launched with the control's launch environment, and does it call StubActivation.activate()?)"
                + (trouble.map { "; \($0)" } ?? "")
        }
        waiter.continuation.resume(throwing: AppControlError(command: waiter.label, message: message))
    }

    private func finish(_ id: Int, _ outcome: Result<ControlReply, any Error>) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(with: outcome)
    }

    /// A launch is about to start: calls wait for the app to connect again rather than failing with
    /// the previous app's exit.
    func launching() {
        state.withLock { state in
            if !state.released { state.ended = nil }
        }
    }

    /// The app has exited: every waiting command fails with `reason`, and later ones at once until
    /// the next launch (``launching()``) or the next app connects.
    func appExited(_ reason: String) {
        end(reason, release: false)
    }

    /// Closes the listener and the connection for good; every call fails with `reason`.
    func release(_ reason: String) {
        end(reason, release: true)
    }

    private func end(_ reason: String, release: Bool) {
        let (waiters, link) = state.withLock { state -> ([Waiter], ControlLink?) in
            if state.released { return ([], nil) }
            state.ended = reason
            state.released = release
            let waiters = Array(state.waiters.values)
            state.waiters = [:]
            let link = state.link
            state.link = nil
            return (waiters, link)
        }
        if release { source.cancel() }
        link?.shutdown()
        for waiter in waiters { waiter.continuation.resume(throwing: AppControlError(command: waiter.label, message: reason)) }
    }
}
