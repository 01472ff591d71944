import Foundation

extension HAR {
    /// What StubKit's journal adds to a HAR entry under `_stubkit` (HAR allows custom fields that
    /// start with an underscore): whether a rule answered, which, and why others did not.
    package struct EntryExtras: Codable, Sendable {
        package var answered: Bool
        package var passedThrough: Bool?
        /// The response file the recording wrote.
        package var recorded: String?
        package var recordingFailed: String?
        /// `request`, `response`: whose body the journal cut.
        package var truncated: [String]?
        package var bundle: String?
        package var rule: String?
        package var location: String?
        package var error: Failure?
        package var nearMisses: [NearMiss]?
        /// How the exchange departs from the API's contract (`stubkit serve --openapi`).
        package var contract: [JournalContractFinding]?

        package init(answered: Bool) { self.answered = answered }

        package struct Failure: Codable, Sendable {
            package var code: Int
            package var description: String
        }

        package struct NearMiss: Codable, Sendable {
            package var bundle: String
            package var rule: String
            package var location: String
            package var mismatches: [String]
        }

        package struct JournalContractFinding: Codable, Sendable {
            package var code: String
            package var severity: String
            /// `request`, `stubResponse` or `backendResponse`: whose side departs.
            package var subject: String
            package var message: String
            package var pointer: String?
            package var parameter: String?
        }
    }
}

extension HAR {
    /// One frame of a WebSocket entry's `_webSocketMessages`, as Chrome writes it: `type` from the
    /// browser's point of view (`send`: the client sent it, `receive`: the client received it), `time`
    /// in seconds since 1970, the frame's `opcode` and its `data` (Base64 for binary frames).
    package struct WebSocketMessage: Codable, Sendable {
        package var type: String
        package var time: Double
        package var opcode: Int
        package var data: String
        /// A close frame's status code (StubKit's; Chrome writes close frames without one).
        package var closeCode: Int?
        /// A client message no reply matched: why each reply did not.
        package var nearMisses: [String]?

        enum CodingKeys: String, CodingKey { case type, time, opcode, data, closeCode = "_closeCode", nearMisses = "_nearMisses" }

        package init(_ record: WebSocketMessageRecord) {
            type = record.direction == .received ? "send" : "receive"
            time = record.time.timeIntervalSince1970
            opcode = record.opcode.rawValue
            data = record.textOrBase64
            closeCode = record.closeCode.map(Int.init)
            nearMisses = record.nearMisses
        }
    }
}
