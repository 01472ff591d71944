import Foundation

/// A command a test runner sends the app it launched (runtime control), one per line.
package enum ControlCommand: Sendable, Hashable {
    /// Loads a template and puts it on top; one already active is reloaded and moved on top.
    case activate(template: String)
    /// Takes an active template off, keeping the others in their order.
    case deactivate(template: String)
    /// Adds one rule written as bundle JSON above the templates; the reply carries its id.
    case addRule(json: String)
    /// Removes a rule added at runtime, by the id its addition returned.
    case removeRule(id: String)
    /// Moves a scenario to a state.
    case setScenarioState(scenario: String, state: String)
    /// Returns scenarios and sequences to their start.
    case resetState
    /// Turns the kill switch on or off.
    case setKillSwitch(Bool)
    /// Fixes the time templates see; `nil` returns them to the real clock.
    case setNow(Date?)
    /// Empties the journal.
    case clearJournal

    /// The wire names, for the error that answers an unknown one.
    package static let names = ["activate", "deactivate", "addRule", "removeRule", "setScenarioState", "resetState",
                                "setKillSwitch", "setNow", "clearJournal"]
}

/// The app's answer to one command: applied (with what the caller needs back), or refused with the
/// app's diagnostics.
package struct ControlReply: Sendable, Hashable {
    /// The id of the command answered; `nil` when the line was too broken to carry one.
    package var id: Int?
    /// Whether the command was applied.
    package var ok: Bool
    /// The id of a rule just added.
    package var ruleID: String?
    /// Why the command was refused, in one paragraph (the same text as the app's own error).
    package var error: String?
    /// Every diagnostic found (for a refused rule: errors located in the text the runner sent).
    package var diagnostics: [Diagnostic]

    package init(id: Int?, ok: Bool, ruleID: String? = nil, error: String? = nil, diagnostics: [Diagnostic] = []) {
        self.id = id
        self.ok = ok
        self.ruleID = ruleID
        self.error = error
        self.diagnostics = diagnostics
    }
}

/// The wire format of runtime control, version 2, written and read here for both sides.
///
/// Newline-delimited JSON over one loopback TCP connection that the app opens to the runner. The app's
/// first line is the hello, `{"v":2,"hello":"<token>","pid":<n>}`; the runner answers with
/// `{"v":2,"welcome":"<runner token>"}`, which proves to the app that its own runner listens, or with
/// `{"v":2,"refused":"<reason>"}` and closes. Then the runner sends commands,
/// `{"id":7,"command":"activate","template":"restaurants_closed"}`, and the app answers each in
/// order with `{"id":7,"ok":true}` or `{"id":7,"ok":false,"error":"…","diagnostics":[…]}`. Every
/// line is at most ``maximumLineLength`` bytes.
package enum ControlProtocol {
    package static let version = 2
    /// Longest line either side accepts (a rule's JSON with an inline body fits many times over).
    package static let maximumLineLength = 1 << 20

    private struct Line: Codable {
        var v: Int?
        var hello: String?
        var pid: Int32?
        var welcome: String?
        var refused: String?
        var id: Int?
        var command: String?
        var template: String?
        var json: String?
        var rule: String?
        var scenario: String?
        var state: String?
        var on: Bool?
        var now: String?
        var ok: Bool?
        var error: String?
        var diagnostics: [WireDiagnostic]?
    }

    private struct WireDiagnostic: Codable {
        var code: String
        var severity: String
        var file: String
        var line: Int?
        var column: Int?
        var keyPath: String
        var message: String
        var fix: String?
    }

    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
        /// The command's id when the line got that far, so the reply can name it.
        package var id: Int?
    }

    // MARK: Hello

    package static func encodeHello(token: String, pid: Int32) -> Data {
        encode(Line(v: version, hello: token, pid: pid))
    }

    /// The hello's token and process id.
    package static func decodeHello(_ data: Data) throws(Failure) -> (token: String, pid: Int32) {
        let line = try decodeLine(data)
        guard line.v == version else { throw Failure(description: "the app speaks control protocol version \(line.v.map(String.init) ?? "none"); this runner speaks version \(version)") }
        guard let token = line.hello else { throw Failure(description: "the first line is not a hello") }
        return (token, line.pid ?? 0)
    }

    /// The runner's answer to an authentic hello: its own token.
    package static func encodeWelcome(runnerToken: String) -> Data {
        encode(Line(v: version, welcome: runnerToken))
    }

    /// The runner's answer to a hello it refuses.
    package static func encodeRefusal(_ reason: String) -> Data {
        encode(Line(v: version, refused: reason))
    }

    /// The runner's token from its answer to the hello.
    ///
    /// - Throws: ``Failure`` with the runner's reason when it refused, or saying what else came.
    package static func decodeWelcome(_ data: Data) throws(Failure) -> String {
        let line = try decodeLine(data)
        if let reason = line.refused { throw Failure(description: "the test runner refused the connection: \(reason)") }
        guard line.v == version, let token = line.welcome else {
            throw Failure(description: "the test runner did not acknowledge the hello (it speaks control protocol version \(line.v.map(String.init) ?? "none"); this app speaks version \(version))")
        }
        return token
    }

    /// Compares two tokens in time that does not depend on where they differ.
    package static func sameToken(_ given: String, _ expected: String) -> Bool {
        let given = Array(given.utf8), expected = Array(expected.utf8)
        guard given.count == expected.count else { return false }
        return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    // MARK: Commands

    package static func encode(_ command: ControlCommand, id: Int) -> Data {
        var line = Line(id: id)
        switch command {
        case .activate(let template): line.command = "activate"; line.template = template
        case .deactivate(let template): line.command = "deactivate"; line.template = template
        case .addRule(let json): line.command = "addRule"; line.json = json
        case .removeRule(let id): line.command = "removeRule"; line.rule = id
        case .setScenarioState(let scenario, let state): line.command = "setScenarioState"; line.scenario = scenario; line.state = state
        case .resetState: line.command = "resetState"
        case .setKillSwitch(let on): line.command = "setKillSwitch"; line.on = on
        case .setNow(let date): line.command = "setNow"; line.now = date.map { dateFormatter().string(from: $0) }
        case .clearJournal: line.command = "clearJournal"
        }
        return encode(line)
    }

    package static func decodeCommand(_ data: Data) throws(Failure) -> (id: Int, command: ControlCommand) {
        let line = try decodeLine(data)
        guard let id = line.id else { throw Failure(description: "a command without an id") }
        func required<T>(_ value: T?, _ key: String) throws(Failure) -> T {
            guard let value else { throw Failure(description: "command '\(line.command ?? "")' without '\(key)'", id: id) }
            return value
        }
        let command: ControlCommand
        switch line.command {
        case "activate": command = .activate(template: try required(line.template, "template"))
        case "deactivate": command = .deactivate(template: try required(line.template, "template"))
        case "addRule": command = .addRule(json: try required(line.json, "json"))
        case "removeRule": command = .removeRule(id: try required(line.rule, "rule"))
        case "setScenarioState": command = .setScenarioState(scenario: try required(line.scenario, "scenario"), state: try required(line.state, "state"))
        case "resetState": command = .resetState
        case "setKillSwitch": command = .setKillSwitch(try required(line.on, "on"))
        case "setNow":
            if let text = line.now {
                guard let date = dateFormatter().date(from: text) else { throw Failure(description: "setNow: '\(text)' is not an ISO 8601 date-time", id: id) }
                command = .setNow(date)
            } else {
                command = .setNow(nil)
            }
        case "clearJournal": command = .clearJournal
        case let name?:
            let suggestion = Suggestion.closest(to: name, in: ControlCommand.names).map { "; did you mean '\($0)'?" } ?? ""
            throw Failure(description: "unknown command '\(name)'\(suggestion) (known: \(ControlCommand.names.joined(separator: ", ")))", id: id)
        case nil:
            throw Failure(description: "a line without a command", id: id)
        }
        return (id, command)
    }

    // MARK: Replies

    package static func encode(_ reply: ControlReply) -> Data {
        var line = Line(id: reply.id, ok: reply.ok, error: reply.error)
        line.rule = reply.ruleID
        if !reply.diagnostics.isEmpty {
            line.diagnostics = reply.diagnostics.map {
                WireDiagnostic(code: $0.code.rawValue, severity: $0.severity.rawValue, file: $0.file, line: $0.position?.line,
                               column: $0.position?.column, keyPath: $0.keyPath, message: $0.message, fix: $0.fix)
            }
        }
        return encode(line)
    }

    package static func decodeReply(_ data: Data) throws(Failure) -> ControlReply {
        let line = try decodeLine(data)
        guard let ok = line.ok else { throw Failure(description: "a reply without 'ok'", id: line.id) }
        let diagnostics = (line.diagnostics ?? []).map { wire in
            Diagnostic(DiagnosticCode(rawValue: wire.code) ?? .invalidValue, severity: Diagnostic.Severity(rawValue: wire.severity) ?? .error,
                       file: wire.file, position: wire.line.map { SourcePosition(line: $0, column: wire.column ?? 1) },
                       keyPath: wire.keyPath, message: wire.message, fix: wire.fix)
        }
        return ControlReply(id: line.id, ok: ok, ruleID: line.rule, error: line.error, diagnostics: diagnostics)
    }

    // MARK: Lines

    private static func encode(_ line: Line) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and booleans only: encoding cannot fail. JSON escapes newlines inside strings,
        // so the only newline is the one that ends the line.
        var data = (try? encoder.encode(line)) ?? Data("{}".utf8)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    private static func decodeLine(_ data: Data) throws(Failure) -> Line {
        do {
            return try JSONDecoder().decode(Line.self, from: data)
        } catch {
            let preview = String(decoding: data.prefix(80), as: UTF8.self)
            throw Failure(description: "not a control message (one JSON object per line): '\(preview)\(data.count > 80 ? "…" : "")'")
        }
    }

    private static func dateFormatter() -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
