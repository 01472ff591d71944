// The floor for the local server's benchmark (Tools/scripts/bench-server): the smallest HTTP/1.1
// server on the same engine and pipeline as StubKitServer (SwiftNIO, NIOHTTP1 with pipelining
// assistance, the same socket options and thread count), answering every request with the same
// bytes, whatever its path. No routing, no journal: what StubKit adds is measured against it.
//
//   stubkit-nio-hello BODY_FILE CONTENT_TYPE    prints "listening on http://127.0.0.1:PORT"
//   stubkit-nio-hello --sse COUNT INTERVAL       answers every request with COUNT Server-Sent Events,
//                                                INTERVAL seconds apart, as Tools/scripts/bench-sse's rule
//
// Apps never link it; it is a tool for the benchmark only.
#if Tools
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

let arguments = CommandLine.arguments
let events: (count: Int, interval: Double)? = arguments.count == 4 && arguments[1] == "--sse"
    ? Int(arguments[2]).flatMap { count in Double(arguments[3]).map { (count, $0) } } : nil
guard events != nil || arguments.count == 3, let bytes = events == nil ? FileManager.default.contents(atPath: arguments[1]) : Data() else {
    FileHandle.standardError.write(Data("usage: stubkit-nio-hello BODY_FILE CONTENT_TYPE (BODY_FILE must be readable), or stubkit-nio-hello --sse COUNT INTERVAL\n".utf8))
    exit(2)
}

/// Answers each request once its end arrives: head, body and end in one flush.
final class HelloHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let body: ByteBuffer
    private let contentType: String
    private var keepAlive = true
    private var version = HTTPVersion.http1_1

    init(body: ByteBuffer, contentType: String) {
        self.body = body
        self.contentType = contentType
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
            version = head.version
        case .body:
            break
        case .end:
            var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", String(body.readableBytes))])
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            let closes = !keepAlive
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                if closes { context.close(promise: nil) }
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Answers each request with `count` events, each written once the one before it was and `interval`
/// seconds have passed (as StubKitServer's event streams are paced), then ends the answer.
final class EventsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let count: Int
    private let interval: TimeAmount

    init(count: Int, interval: Double) {
        self.count = count
        self.interval = .nanoseconds(Int64(interval * 1e9))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        let headers = HTTPHeaders([("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        send(0, context: context)
    }

    private func send(_ index: Int, context: ChannelHandlerContext) {
        guard index < count else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        let event = "event: tick\nid: \(index)\ndata: {\"seq\":\(index),\"status\":\"on_its_way\",\"etaMinutes\":12}\n\n"
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: event))))).assumeIsolated().whenSuccess {
            context.eventLoop.assumeIsolated().scheduleTask(in: self.interval) { self.send(index + 1, context: context) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

let body = ByteBuffer(bytes: bytes)
let contentType = events == nil ? arguments[2] : ""
let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, ProcessInfo.processInfo.activeProcessorCount))
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelOption(.maxMessagesPerRead, value: 16)
    .childChannelInitializer { [body, contentType] channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
            if let events {
                try channel.pipeline.syncOperations.addHandler(EventsHandler(count: events.count, interval: events.interval))
            } else {
                try channel.pipeline.syncOperations.addHandler(HelloHandler(body: body, contentType: contentType))
            }
        }
    }
let channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8))
// Runs until killed (the benchmark sends SIGTERM).
try channel.closeFuture.wait()
#else
import Foundation

FileHandle.standardError.write(Data("stubkit-nio-hello was built without the Tools trait; build it with: swift build --traits Tools --product stubkit-nio-hello\n".utf8))
exit(2)
#endif
