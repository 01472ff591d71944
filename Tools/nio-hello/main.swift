// The floor for the local server's benchmark (Tools/scripts/bench-server): the smallest HTTP/1.1
// server on the same engine and pipeline as StubKitServer (SwiftNIO, NIOHTTP1 with pipelining
// assistance, the same socket options and thread count), answering every request with the same
// bytes, whatever its path. No routing, no journal: what StubKit adds is measured against it.
//
//   stubkit-nio-hello BODY_FILE CONTENT_TYPE    prints "listening on http://127.0.0.1:PORT"
//
// Apps never link it; it is a tool for the benchmark only.
#if Tools
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

let arguments = CommandLine.arguments
guard arguments.count == 3, let bytes = FileManager.default.contents(atPath: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: stubkit-nio-hello BODY_FILE CONTENT_TYPE (BODY_FILE must be readable)\n".utf8))
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

let body = ByteBuffer(bytes: bytes)
let contentType = arguments[2]
let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, ProcessInfo.processInfo.activeProcessorCount))
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelOption(.maxMessagesPerRead, value: 16)
    .childChannelInitializer { [body, contentType] channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(HelloHandler(body: body, contentType: contentType))
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
