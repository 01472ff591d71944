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
    }
}
