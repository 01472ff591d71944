#if Tools
import Foundation
import StubKit

/// One thing a reader found in a source file, ready for the bundle writer.
package enum ImportedEntry: Sendable {
    /// Recorded traffic (a HAR entry, a cassette interaction): written as a recording writes it, with
    /// the same redaction and conditions; identical requests become one rule's `responses`.
    case exchange(Exchange)
    /// A stub someone wrote (a WireMock mapping, a Mocktail file), with its own conditions.
    case stub(Stub)
    /// A recorded WebSocket conversation (a HAR entry's `_webSocketMessages`): written as the local
    /// server's recorder writes a relayed one, as a rule with a `webSocket` script.
    case webSocket(WebSocket)

    package struct WebSocket: Sendable {
        package var source: String
        package var recording: WebSocketRecording
    }

    package struct Exchange: Sendable {
        package var source: String
        package var request: StubRequest
        package var status: Int
        package var headers: [String: String]
        /// Decoded (no transfer or content encoding left).
        package var body: Data
        /// When it was recorded, if the source says.
        package var startedAt: Date?
    }

    package struct Stub: Sendable {
        package var source: String
        package var conditions: BundleWriter.RequestConditions
        package var response: BundleWriter.Response
        /// What decides which requests the source stub answers, as the source wrote it (WireMock: the
        /// request, priority and scenario state as canonical JSON): equal for two stubs exactly when
        /// one shadows the other, whatever was not carried over.
        var matchIdentity: String?
    }

    package var source: String {
        switch self {
        case .exchange(let exchange): return exchange.source
        case .stub(let stub): return stub.source
        case .webSocket(let webSocket): return webSocket.source
        }
    }
}

/// Something in a source entry that the bundle cannot carry: what, and what was done instead.
package struct ImportNote: Sendable, Hashable, CustomStringConvertible {
    /// The file and the entry in it: `recording.har: log.entries[2]`.
    package var source: String
    package var message: String

    package init(source: String, message: String) {
        self.source = source
        self.message = message
    }

    package var description: String { "\(source): \(message)" }
}

/// What a reader made of one source file.
package struct ImportBatch: Sendable {
    package var format: ImportFormat
    package var file: String
    package var entries: [ImportedEntry] = []
    package var notes: [ImportNote] = []
    /// The most bytes this file's compressed bodies may still inflate to (the import's budget left).
    var inflateLimit = Int.max
    /// Bytes this file's compressed bodies inflated to.
    var inflatedBytes = 0

    package init(format: ImportFormat, file: String) {
        self.format = format
        self.file = file
    }

    mutating func note(_ source: String, _ message: String) {
        notes.append(ImportNote(source: source, message: message))
    }
}
#endif
