#if Tools
import ArgumentParser
import Foundation
import StubKit
import StubKitOpenAPI
import StubKitServer

/// `stubkit serve --openapi`: the server's contract check, made from `stublint traffic`'s validator.
enum ServeContract {
    /// What `--validate` checks.
    enum Scope: String, CaseIterable, ExpressibleByArgument {
        case requests, responses, both
    }

    /// The check the server runs on each exchange; findings are written to stderr as they are made.
    static func check(_ spec: OpenAPISpec, scope: Scope, rejectsInvalidRequests: Bool) -> ServerContractCheck {
        let validator = TrafficValidator(spec: spec)
        return ServerContractCheck(checksRequests: scope != .responses, checksResponses: scope != .requests, rejectsInvalidRequests: rejectsInvalidRequests,
                             check: { request, hostIsNamed, answer in findings(validator, request, hostIsNamed: hostIsNamed, answer) },
                             report: { line in FileHandle.standardError.write(Data("stubkit: \(line)\n".utf8)) })
    }

    /// The validator's diagnostics for a request (answer `nil`), or for the answer alone.
    static func findings(_ validator: TrafficValidator, _ request: StubRequest, hostIsNamed: Bool, _ answer: ServerContractCheck.Answer?) -> [JournalContractFinding] {
        var entry = TrafficEntry(index: 1, method: request.method, url: request.url,
                                 headers: request.headers.sorted { $0.key < $1.key }.map { .init(name: $0.key, value: $0.value) },
                                 body: request.body, response: nil, source: .init(file: "stubkit serve"))
        // An app pointed at the server's own address (`http://127.0.0.1:8080/v1/orders`) names no API
        // host: its path is checked against every server's base path, as a rule without `host` matches.
        entry.hostIsKnown = hostIsNamed
        if let answer {
            // `isReal`, since the validator checks only answers it is told a backend sent: here the
            // stub's answer is checked as well, and the finding then says the stub is wrong.
            entry.response = .init(status: answer.status, headers: answer.headers.sorted { $0.key < $1.key }.map { .init(name: $0.key, value: $0.value) },
                                   body: answer.body, bodyTruncated: answer.bodyTruncated, isReal: true)
        }
        let codes: Set<DiagnosticCode> = answer == nil
            ? [.trafficOperationNotFound, .trafficParameterInvalid, .trafficRequestBodyInvalid, .trafficNotChecked]
            : [.trafficResponseStatusUndocumented, .trafficResponseBodyInvalid]
        return validator.validate(entry, checksRequest: answer == nil).filter { codes.contains($0.code) }.map { diagnostic in
            // Without the request's label (the journal has the request), as the validator wrote it.
            let label = TrafficValidator.entryLabel(of: diagnostic)
            var message = label.map { String(diagnostic.message.dropFirst($0.count + 2)) } ?? diagnostic.message
            var severity = diagnostic.severity
            var subject = JournalContractFinding.Subject.request
            if let answer {
                subject = answer.isReal ? .backendResponse : .stubResponse
                // The stub is wrong, not the app: a warning, in the stub's words.
                if !answer.isReal {
                    message = message.replacingOccurrences(of: "the backend answered", with: "the stub answered")
                        .replacingOccurrences(of: "the backend's", with: "the stub's")
                }
                if severity == .error { severity = .warning }
            }
            var finding = JournalContractFinding(code: diagnostic.code.rawValue, severity: severity, subject: subject, message: message,
                                                 pointer: diagnostic.pointer, parameter: parameter(in: message))
            // `#1 GET https://…/reset/REDACTED?…` less its number and query: the URL as stderr prints it.
            finding.shownURL = label.flatMap { $0.split(separator: " ", maxSplits: 2).last?.split(separator: "?", maxSplits: 1).first.map(String.init) }
            return finding
        }
    }

    /// The parameter a finding names (`required query parameter 'limit' is missing`).
    static func parameter(in message: String) -> String? {
        guard let start = message.range(of: "parameter '"), let end = message[start.upperBound...].firstIndex(of: "'") else { return nil }
        return String(message[start.upperBound..<end])
    }

    /// Loads the spec once, at start; one that cannot be read ends `serve` with status 2.
    static func load(_ path: String) throws -> OpenAPISpec {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        do {
            return try OpenAPISpec.load(URL(fileURLWithPath: path, relativeTo: cwd), display: path)
        } catch {
            printError("error: \(error.description) [\(DiagnosticCode.unreadableSpec.rawValue)]")
            throw ExitCode.badInput
        }
    }
}
#endif
