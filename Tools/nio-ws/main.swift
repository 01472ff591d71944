// The floor for the WebSocket benchmark (Tools/scripts/bench-websocket): the smallest WebSocket server
// on the same engine as StubKitServer (SwiftNIO, NIOWebSocket's upgrader, the same socket options and
// thread count). On each connection it pushes COUNT text messages `{"seq":N}`, message N due N x
// INTERVAL seconds after the upgrade (the schedule a `webSocket` rule's `onConnect` steps with
// `"delay": INTERVAL` give), then closes with 1000. No rules, no journal: what StubKit adds is measured
// against it.
//
//   stubkit-nio-ws COUNT INTERVAL    prints "listening on http://127.0.0.1:PORT"
//
// Apps never link it; it is a tool for the benchmark only.
#if Tools
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[1]), count > 0, let interval = Double(arguments[2]), interval >= 0 else {
    FileHandle.standardError.write(Data("usage: stubkit-nio-ws COUNT INTERVAL_SECONDS\n".utf8))
    exit(2)
}

/// Pushes the schedule once the upgrade completes; answers pings; closes when the client does.
final class PushHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let count: Int
    private let interval: TimeAmount
    private var scheduled: [Scheduled<Void>] = []

    init(count: Int, interval: TimeAmount) {
        self.count = count
        self.interval = interval
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let start = NIODeadline.now()
        let loop = context.eventLoop.assumeIsolated()
        for seq in 1...count {
            let deadline = start + interval * Int64(seq)
            scheduled.append(loop.scheduleTask(deadline: deadline) { [self] in
                let frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "{\"seq\":\(seq)}"))
                context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
                if seq == count {
                    var data = context.channel.allocator.buffer(capacity: 2)
                    data.writeInteger(UInt16(1000))
                    context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
                }
            })
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        scheduled.forEach { $0.cancel() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            context.close(promise: nil)
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

let pushInterval = TimeAmount.nanoseconds(Int64(interval * 1_000_000_000))
let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, ProcessInfo.processInfo.activeProcessorCount))
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelOption(.maxMessagesPerRead, value: 16)
    .childChannelInitializer { channel in
        let upgrader = NIOWebSocketServerUpgrader(
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(PushHandler(count: count, interval: pushInterval))
                }
            })
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
        }
    }
let channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8))
// Runs until killed (the benchmark sends SIGTERM).
try channel.closeFuture.wait()
#else
import Foundation

FileHandle.standardError.write(Data("stubkit-nio-ws was built without the Tools trait; build it with: swift build --traits Tools --product stubkit-nio-ws\n".utf8))
exit(2)
#endif
