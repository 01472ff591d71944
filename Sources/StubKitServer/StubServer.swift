#if Tools
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import StubKit

/// The local stub server: the same bundles the in-process ``StubURLProtocol`` serves, over HTTP/1.1
/// to any process on any platform (another app, an Android emulator, a browser, `curl`).
///
/// Embeddable in a test runner (``start()`` returns once connections are accepted, ``shutdown()``
/// lets answers in flight finish) and run by `stubkit serve`. One ``StubEngine`` answers: its active
/// templates, kill switch, recorder and journal are the server's.
///
/// ```swift
/// let engine = StubEngine(killSwitch: true)
/// let server = StubServer(engine: engine, bundlesFolder: URL(fileURLWithPath: "StubBundles"))
/// try server.activate("restaurants_base")
/// let port = try await server.start()
/// // point the app at http://127.0.0.1:\(port)/api.example.com/…
/// await server.shutdown()
/// ```
package final class StubServer: Sendable {
    package let engine: StubEngine
    package let configuration: StubServerConfiguration
    private let group: MultiThreadedEventLoopGroup
    private let admin: AdminAPI
    private let dispatcher: RequestDispatcher
    private let state = NIOLockedValueBox(State())
    let connections = OpenConnections()

    private struct State {
        var channel: (any Channel)?
        var quiescing: ServerQuiescingHelper?
        var port: Int?
        var stopped = false
        var groupShutDown = false
    }

    /// - Parameters:
    ///   - engine: answers the requests. With ``StubServerConfiguration/MissPolicy/refuse`` its kill
    ///     switch is turned on; with `forward`, off.
    ///   - bundlesFolder: where ``activate(_:)`` and the admin API find templates by name.
    package init(engine: StubEngine, bundlesFolder: URL? = nil, configuration: StubServerConfiguration = StubServerConfiguration()) {
        self.engine = engine
        self.configuration = configuration
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.threads)
        self.admin = AdminAPI(engine: engine, bundlesFolder: bundlesFolder, maximumWait: configuration.maximumAdminWait)
        self.dispatcher = RequestDispatcher(engine: engine, configuration: configuration, group: group, admin: admin)
        engine.setKillSwitch(configuration.onMiss == .refuse)
    }

    deinit {
        // A server never shut down still owns its threads.
        if !state.withLockedValue({ $0.groupShutDown }) { try? group.syncShutdownGracefully() }
    }

    /// Loads a template from the bundles folder and puts it on top of the active ones.
    /// - Returns: its diagnostics (notes and warnings included).
    /// - Throws: ``StubServerError`` naming the template when it is missing or has errors.
    @discardableResult
    package func activate(_ template: String) throws(StubServerError) -> [Diagnostic] {
        do {
            let diagnostics = try admin.activate(template)
            dispatcher.refreshRouting()
            return diagnostics
        } catch {
            throw StubServerError(description: error.message)
        }
    }

    /// The port accepting connections, once started.
    package var port: Int? { state.withLockedValue { $0.port } }

    /// Counts over the event streams sent so far and open now.
    package var eventStreams: EventStreamCounts { dispatcher.eventStreams.value }

    /// `http://HOST:PORT`, once started.
    package var baseURL: URL? {
        port.flatMap { URL(string: "http://\(Self.urlHost(configuration.host)):\($0)") }
    }

    /// Binds and starts accepting connections.
    /// - Returns: the port (the one chosen by the system for port 0).
    /// - Throws: ``StubServerError`` when the address cannot be bound (the port is taken, say), or the
    ///   upstream certificate authorities file cannot be read.
    package func start() async throws(StubServerError) -> Int {
        let channel: any Channel, quiescing: ServerQuiescingHelper
        do throws(StubServerError) {
            let upstreamTLS = try UpstreamTLS(certificateAuthorities: configuration.upstreamCertificateAuthorities)
            do {
                (channel, quiescing) = try await bind(upstreamTLS: upstreamTLS)
            } catch {
                throw StubServerError(description: "cannot listen on \(configuration.host):\(configuration.port): \(Self.reason(error))")
            }
        } catch {
            // The server cannot start again: stop its loops now rather than in deinit.
            state.withLockedValue { $0.stopped = true; $0.groupShutDown = true }
            try? await group.shutdownGracefully()
            throw error
        }
        let port = channel.localAddress?.port ?? configuration.port
        dispatcher.bound(to: "\(Self.urlHost(configuration.host)):\(port)")
        state.withLockedValue { state in
            state.channel = channel
            state.quiescing = quiescing
            state.port = port
        }
        return port
    }

    private func bind(upstreamTLS: UpstreamTLS) async throws -> (any Channel, ServerQuiescingHelper) {
        // The listening channel and the quiescing helper's promise on one loop: when a failed bind lets
        // go of the helper during the group's shutdown, it completes its promise on the loop it runs
        // on, instead of scheduling onto another loop that may already have stopped.
        let serverLoop = group.next()
        let quiescing = ServerQuiescingHelper(group: serverLoop)
        let dispatcher = self.dispatcher
        let connections = self.connections
        let bootstrap = ServerBootstrap(group: serverLoop, childGroup: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                connections.insert(channel)
                return channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(ShutdownNotifier())
                    let webSocket = WebSocketUpgrade(dispatcher: dispatcher, upstreamTLS: upstreamTLS)
                    try operations.configureHTTPServerPipeline(withPipeliningAssistance: true, withServerUpgrade: webSocket.configuration,
                                                               withErrorHandling: true)
                    try operations.addHandler(ConnectionHandler(dispatcher: dispatcher, webSocketUpgrade: webSocket))
                }
            }
        return (try await bootstrap.bind(host: configuration.host, port: configuration.port).get(), quiescing)
    }

    /// Stops accepting connections, lets answers in flight finish (up to
    /// ``StubServerConfiguration/shutdownGrace``), closes idle and held connections, and returns
    /// when every connection is closed. Safe to call more than once.
    package func shutdown() async {
        let first = state.withLockedValue { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        let promise = group.next().makePromise(of: Void.self)
        let quiescing = state.withLockedValue { state -> Bool in
            state.quiescing?.initiateShutdown(promise: promise)
            return state.quiescing != nil
        }
        if quiescing {
            // Still open after the grace period: closed here, while the loops run, which completes the
            // quiescing. (Left to the group's shutdown, answers still streaming scheduled their next chunk
            // on a loop already shut down: NIO's "Cannot schedule tasks on an EventLoop that has already
            // shut down". Succeeding the promise here too raced the same way.)
            let deadline = group.next().scheduleTask(in: RequestDispatcher.duration(configuration.shutdownGrace)) { [connections] in
                connections.closeAll()
            }
            _ = try? await promise.futureResult.get()
            deadline.cancel()
        } else {
            promise.succeed()
        }
        // The helper is let go of while the event loops still run: its deinit completes a promise on one.
        state.withLockedValue { state in
            state.quiescing = nil
            state.channel = nil
            state.groupShutDown = true
        }
        try? await group.shutdownGracefully()
    }

    /// Runs until SIGINT or SIGTERM, then shuts down gracefully. Make `signals` before ``start()`` so
    /// that no signal between the two ends the process the default way.
    package func runUntilSignalled(_ signals: ShutdownSignals = ShutdownSignals()) async {
        await signals.wait()
        await shutdown()
    }

    /// What went wrong, in words: NIO's system-call errors without the call's Swift signature.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? IOError else { return String(describing: error) }
        let text = String(cString: strerror(error.errnoCode))
        let hint = error.errnoCode == EADDRINUSE ? "; another process uses it: choose another port, or 0 for a free one" : ""
        return "\(text) (errno \(error.errnoCode))\(hint)"
    }

    static func urlHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}

/// Why the server cannot start or a template cannot be activated.
package struct StubServerError: Error, Sendable, CustomStringConvertible, LocalizedError {
    package let description: String
    package var errorDescription: String? { description }
}

/// First in each connection's pipeline: turns the quiescing helper's event into ``ServerShuttingDown``
/// for the connection handler (the HTTP pipelining handler keeps the original to itself).
final class ShutdownNotifier: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            context.fireUserInboundEventTriggered(ServerShuttingDown())
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// The connections open now, so the ones still busy when the shutdown grace ends can be closed.
final class OpenConnections: Sendable {
    private let channels = NIOLockedValueBox([ObjectIdentifier: any Channel]())

    func insert(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLockedValue { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = channels.withLockedValue { $0.removeValue(forKey: id) }
        }
    }

    func closeAll() {
        for channel in channels.withLockedValue({ Array($0.values) }) { channel.close(promise: nil) }
    }

    /// Bytes written to the open connections and not yet taken by their sockets: what a client that does not read costs.
    func bufferedOutboundBytes() async -> Int {
        var total = 0
        for channel in channels.withLockedValue({ Array($0.values) }) {
            total += (try? await channel.getOption(.bufferedWritableBytes).get()) ?? 0
        }
        return total
    }
}
#endif
