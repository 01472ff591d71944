import Foundation

/// The app's end of runtime control: one connection out to the runner that launched it, and one
/// thread that reads its commands, applies them and answers each.
///
/// Opened only when the launch environment carries ``ControlLaunchSettings``; a production launch
/// opens nothing. The thread blocks in `recv` (no polling) and ends when the runner closes the
/// connection; a broken or unknown message is answered with an error and the app carries on serving.
package final class ControlConnection: Sendable {
    private let socket: LoopbackSocket
    private let handler: ControlCommandHandler

    private init(socket: LoopbackSocket, handler: ControlCommandHandler) {
        self.socket = socket
        self.handler = handler
    }

    /// How long the app waits for the runner to answer its hello.
    package static let welcomeLimit = 10

    /// Connects to the runner, says hello with the token, waits for the runner to prove itself with
    /// its own token, and starts answering commands.
    ///
    /// - Throws: ``StubKitError`` when the runner cannot be reached, refuses the hello (with its
    ///   reason) or does not prove itself: it asked for control, so carrying on silently would leave
    ///   the app unsteered and its first command waiting for an app that never comes.
    package static func start(_ settings: ControlLaunchSettings, handler: ControlCommandHandler) throws(StubKitError) -> ControlConnection {
        let place = "\(ControlLaunchSettings.addressVariable)=127.0.0.1:\(settings.port)"
        let socket: LoopbackSocket
        do {
            socket = try LoopbackSocket.connect(port: settings.port)
        } catch {
            throw .invalidLaunchSetting("\(place): cannot reach the test runner: \(error.description)")
        }
        guard socket.send(ControlProtocol.encodeHello(token: settings.token, pid: ProcessInfo.processInfo.processIdentifier)) else {
            socket.close()
            throw .invalidLaunchSetting("\(place): the test runner closed the connection")
        }
        var reader = ControlLineReader()
        let pending: [ControlLineReader.Item]
        do {
            pending = try welcome(on: socket, settings: settings, reader: &reader)
        } catch {
            socket.close()
            throw .invalidLaunchSetting("\(place): \(error.description)")
        }
        socket.setReceiveTimeout(0)
        let connection = ControlConnection(socket: socket, handler: handler)
        let welcomed = reader
        let thread = Thread { connection.serve(reader: welcomed, carrying: pending) }
        thread.name = "StubKit runtime control"
        thread.start()
        return connection
    }

    /// Waits for the runner's welcome and checks its token; the items that arrived behind it.
    private static func welcome(on socket: LoopbackSocket, settings: ControlLaunchSettings,
                                reader: inout ControlLineReader) throws(ControlProtocol.Failure) -> [ControlLineReader.Item] {
        socket.setReceiveTimeout(welcomeLimit)
        var items: [ControlLineReader.Item] = []
        while items.isEmpty {
            let bytes: Data
            do { bytes = try socket.receive() } catch {
                throw ControlProtocol.Failure(description: "the test runner did not answer the hello within \(welcomeLimit) s (\(error.description))")
            }
            if bytes.isEmpty { throw ControlProtocol.Failure(description: "the test runner closed the connection without answering the hello") }
            items = reader.append(bytes)
        }
        guard case .line(let line) = items[0] else { throw ControlProtocol.Failure(description: "the test runner's answer to the hello is over the size limit") }
        let token = try ControlProtocol.decodeWelcome(line)
        guard ControlProtocol.sameToken(token, settings.runnerToken) else {
            throw ControlProtocol.Failure(description: "the process listening there is not the test runner that launched this app (its token differs)")
        }
        return Array(items.dropFirst())
    }

    /// Reads and answers commands until the runner closes the connection; `reader` and `carrying`
    /// hold what arrived with the welcome.
    private func serve(reader: ControlLineReader, carrying: [ControlLineReader.Item]) {
        var reader = reader
        var items = carrying
        while true {
            for item in items {
                let reply: ControlReply
                switch item {
                case .line(let line):
                    reply = answer(line)
                case .tooLong(let count):
                    reply = ControlReply(id: nil, ok: false, error: reader.tooLongDescription(count))
                }
                guard socket.send(ControlProtocol.encode(reply)) else { socket.close(); return }
            }
            guard let bytes = try? socket.receive(), !bytes.isEmpty else { break }
            items = reader.append(bytes)
        }
        // A message cut in half has nobody left to hear about it: the runner closed its end.
        socket.close()
    }

    private func answer(_ line: Data) -> ControlReply {
        do {
            let (id, command) = try ControlProtocol.decodeCommand(line)
            return handler.handle(command, id: id)
        } catch {
            return ControlReply(id: error.id, ok: false, error: error.description)
        }
    }
}
