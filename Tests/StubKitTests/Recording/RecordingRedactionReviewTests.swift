import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Findings of the record-mode review, kept as regression tests: no secret in a body condition,
/// cookie attributes are no secrets, and mode 'all' never deletes a folder that is not a bundle.
struct RecordingRedactionReviewTests {
    func recorder(_ folder: TemporaryFolder, ignored: [RecorderConfiguration.VolatileField] = []) throws -> Recorder {
        try Recorder(configuration: RecorderConfiguration(template: "rec", folder: folder.url, ignored: ignored))
    }

    func conditionText(_ conditions: BundleWriter.RequestConditions) -> String {
        switch conditions.body {
        case .equals(let text)?, .equalsJSON(let text)?, .containsJSON(let text)?: return text
        case nil: return ""
        }
    }

    @Test("a secret inside an array next to a top-level secret never reaches the body condition")
    func nestedSecretInArray() throws {
        let folder = try TemporaryFolder()
        let body = #"{"password":"pw-111111","devices":[{"push_token":"LEAKED-PUSH-TOKEN"}],"name":"Ann"}"#
        let request = StubRequest(method: "POST", url: URL(string: "https://api.test/login")!, body: Data(body.utf8))
        var redacted = 0
        let conditions = try recorder(folder).conditions(for: request, redacted: &redacted)
        #expect(!conditionText(conditions).contains("LEAKED-PUSH-TOKEN"))
        #expect(!conditionText(conditions).contains("pw-111111"))
        #expect(redacted >= 2)
    }

    @Test("only a cookie's value is a secret, never its attributes or digits-only values")
    func cookieAttributes() {
        let parts = Redactor.secretParts(of: "uid=abc123xyz; Path=/api/v1; Domain=example.com; Max-Age=31536000; HttpOnly; Secure")
        #expect(parts.contains("abc123xyz"))
        for attribute in ["/api/v1", "example.com", "31536000", "HttpOnly", "Secure"] {
            #expect(!parts.contains(attribute), "\(attribute) taken as a secret")
        }
        #expect(Redactor.secretParts(of: "Bearer sekret-bearer-789").contains("sekret-bearer-789"))
    }

    @Test("mode 'all' refuses to replace a folder that is not a bundle")
    func allModeNeverDeletesOtherFolders() throws {
        let folder = try TemporaryFolder()
        let precious = try folder.file("Sources/main.swift", data: Data("print(1)".utf8))
        #expect(throws: RecordingError.self) {
            _ = try BundleWriter(folder: folder.url.appendingPathComponent("Sources"), replacing: true)
        }
        #expect(FileManager.default.fileExists(atPath: precious.path))
    }
}
