#if Tools
import Foundation
import StubKit

/// The frames of one WebSocket conversation, kept for its journal entry within bounds: a script that
/// sends forever must not grow the server's memory without limit.
struct WebSocketTranscript {
    /// Frames kept per connection; later ones are counted, not kept.
    static let maximumFrames = 1000

    private(set) var messages: [WebSocketMessageRecord] = []
    private(set) var dropped = 0
    private var keptBytes = 0
    /// Bytes kept across the conversation's payloads (the journal's limit for one body).
    let maximumBytes: Int

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    mutating func append(_ direction: WebSocketMessageRecord.Direction, _ opcode: WebSocketMessageRecord.Opcode, _ payload: Data,
                         closeCode: UInt16? = nil, nearMisses: [String]? = nil) {
        guard messages.count < Self.maximumFrames, keptBytes <= maximumBytes else {
            dropped += 1
            return
        }
        let kept = payload.count > maximumBytes - keptBytes ? payload.prefix(max(0, maximumBytes - keptBytes)) : payload
        keptBytes += kept.count
        messages.append(WebSocketMessageRecord(direction: direction, time: Date(), opcode: opcode, data: Data(kept), size: payload.count,
                                               closeCode: closeCode, nearMisses: nearMisses))
    }
}
#endif
