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

    /// Connects to the runner, says hello with the token, and starts answering commands.
    ///
    /// - Throws: ``StubKitError`` when the runner cannot be reached: it asked for control, so carrying
    ///   on silently would leave its first command waiting for an app that never comes.
    package static func start(_ settings: ControlLaunchSettings, handler: ControlCommandHandler) throws(StubKitError) -> ControlConnection {
        let socket: LoopbackSocket
        do {
            socket = try LoopbackSocket.connect(port: settings.port)
        } catch {
            throw .invalidLaunchSetting("\(ControlLaunchSettings.addressVariable)=127.0.0.1:\(settings.port): cannot reach the test runner: \(error.description)")
        }
        guard socket.send(ControlProtocol.encodeHello(token: settings.token, pid: ProcessInfo.processInfo.processIdentifier)) else {
            socket.close()
            throw .invalidLaunchSetting("\(ControlLaunchSettings.addressVariable)=127.0.0.1:\(settings.port): the test runner closed the connection")
        }
        let connection = ControlConnection(socket: socket, handler: handler)
        let thread = Thread { connection.serve() }
        thread.name = "StubKit runtime control"
        thread.start()
        return connection
    }

    /// Reads and answers commands until the runner closes the connection.
    private func serve() {
        var reader = ControlLineReader()
        while true {
            let bytes = socket.receive()
            if bytes.isEmpty { break }
            for item in reader.append(bytes) {
                let reply: ControlReply
                switch item {
                case .line(let line):
                    reply = answer(line)
                case .tooLong(let count):
                    reply = ControlReply(id: nil, ok: false, error: reader.tooLongDescription(count))
                }
                guard socket.send(ControlProtocol.encode(reply)) else { socket.close(); return }
            }
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
