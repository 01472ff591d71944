import Foundation

/// What a process's launch arguments and environment ask of StubKit.
///
/// - `STUB_API_CALLS_<template>`: activate the bundle `<template>`. Several layer in order, later ones
///   over earlier ones. A leading `-` is accepted (`-STUB_API_CALLS_x`, the XCUITest habit).
/// - `STUB_KILL_NETWORK`: fail every request that no rule answers.
/// - Apple's `-KEY VALUE` form: `-STUB_KILL_NETWORK NO`, `-STUB_API_CALLS_x YES`, `-STUB_SEED 42`.
/// - The same as environment variables (for processes without launch arguments): `STUB_API_CALLS=a,b`
///   (ordered), `STUB_API_CALLS_<template>=1` (ordered by name), `STUB_KILL_NETWORK=1`. Environment
///   templates come first, so launch arguments layer over them. A value of `0`, `NO` or `false` turns one off.
package struct StubLaunchSettings: Sendable, Hashable {
    // Also: `STUB_NOW=<ISO 8601>` fixes the time templates see; `STUB_SEED=<n>` seeds random delays.
    package static let templatePrefix = "STUB_API_CALLS_"
    package static let killSwitchFlag = "STUB_KILL_NETWORK"
    package static let templateListVariable = "STUB_API_CALLS"
    package static let bundlesPathVariable = "STUB_BUNDLES_PATH"
    package static let nowPrefix = "STUB_NOW"
    package static let seedPrefix = "STUB_SEED"
    /// `STUB_JOURNAL_LIVE=<file>`: append each journal entry to this file as one JSON line, as it happens.
    package static let liveJournalVariable = "STUB_JOURNAL_LIVE"

    /// Templates in activation order, each once (its first appearance counts).
    package var templates: [String]
    package var killSwitch: Bool
    /// The "now" templates see (`STUB_NOW=<ISO 8601>`), so a replay sees the same time every day.
    package var now: Date?
    /// The seed of random delays (`STUB_SEED=<n>`).
    package var seed: UInt64?
    /// Record mode (`STUB_RECORD=<template>` and its companions; see ``RecordingLaunchSettings``).
    package var recording: RecordingLaunchSettings?
    /// The live journal file (`STUB_JOURNAL_LIVE=<file>`) a test runner reads while the app runs.
    package var liveJournalPath: String?
    /// Runtime control (`STUB_CONTROL`, `STUB_CONTROL_TOKEN`; environment only): the runner to report to.
    package var control: ControlLaunchSettings?
    /// The local stub server the app's WebSockets go to (`STUB_WEBSOCKET_SERVER=<URL>`; see ``WebSocketRoute``):
    /// loopback unless the environment has `STUB_WEBSOCKET_SERVER_ALLOW_REMOTE=1`, and only in a launch
    /// that asks for templates, the kill switch or recording.
    package var webSocketServer: URL?
    /// Arguments and variables that start with `STUB_` but could not be understood.
    package var problems: [String] = []

    package init(templates: [String] = [], killSwitch: Bool = false, now: Date? = nil, seed: UInt64? = nil) {
        self.templates = templates
        self.killSwitch = killSwitch
        self.now = now
        self.seed = seed
    }

    /// Whether anything asks for stubbing at all; when not, an app starts exactly as in production.
    package var isEmpty: Bool { templates.isEmpty && !killSwitch && recording == nil && liveJournalPath == nil && control == nil }

    package init(arguments: [String], environment: [String: String]) {
        var templates: [String] = []
        var killSwitch = false
        var now: Date? = nil
        var seed: UInt64? = nil
        var problems: [String] = []

        func setting(_ name: String, _ value: String, from source: String) {
            switch name {
            case Self.nowPrefix:
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withInternetDateTime]
                let fractional = ISO8601DateFormatter()
                fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                if let date = formatter.date(from: value) ?? fractional.date(from: value) {
                    now = date
                } else {
                    problems.append("\(source) \(name)=\(value): not an ISO 8601 date-time such as 2024-05-01T19:30:00Z")
                }
            case Self.seedPrefix:
                if let n = UInt64(value) { seed = n } else { problems.append("\(source) \(name)=\(value): not a non-negative integer") }
            default:
                break
            }
        }

        // A switch given a value that is neither on nor off is an error, as for STUB_NOW: read as on, a
        // typo would quietly change what the app under test sees.
        func isOn(_ value: String, _ name: String, from source: String) -> Bool {
            if value.isEmpty { return true }
            if let on = Self.switchWord(value) { return on }
            problems.append("\(source) \(name)=\(value): not a switch value; use 1 or 0, YES or NO, true or false, on or off")
            return false
        }

        if let list = environment[Self.templateListVariable] {
            templates += list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        for name in environment.keys.sorted() where name.hasPrefix(Self.templatePrefix) && isOn(environment[name]!, name, from: "environment variable") {
            templates.append(String(name.dropFirst(Self.templatePrefix.count)))
        }
        if let value = environment[Self.killSwitchFlag], isOn(value, Self.killSwitchFlag, from: "environment variable") { killSwitch = true }
        for name in [Self.nowPrefix, Self.seedPrefix] {
            if let value = environment[name] { setting(name, value, from: "environment variable") }
        }

        // The first argument is the executable. Apple's convention is `-KEY VALUE` (the argument domain
        // of UserDefaults): after a dashed flag, a boolean word is its value (`-STUB_KILL_NETWORK NO`);
        // after a dashed STUB_NOW or STUB_SEED, the next argument is.
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            let dashed = argument.hasPrefix("-")
            let flag = dashed ? String(argument.drop { $0 == "-" }) : argument
            func switchValue() -> Bool {
                guard dashed, let next = rest.first, let value = Self.booleanWord(next) else { return true }
                rest.removeFirst()
                return value
            }
            if flag.hasPrefix(Self.templatePrefix) {
                let template = String(flag.dropFirst(Self.templatePrefix.count))
                if switchValue() { templates.append(template) } else { templates.removeAll { $0 == template } }
            } else if flag == Self.killSwitchFlag {
                killSwitch = switchValue()
            } else if flag.hasPrefix(Self.killSwitchFlag + "=") {
                killSwitch = isOn(String(flag.dropFirst(Self.killSwitchFlag.count + 1)), Self.killSwitchFlag, from: "launch argument")
            } else if let equals = flag.firstIndex(of: "="), [Self.nowPrefix, Self.seedPrefix].contains(String(flag[..<equals])) {
                setting(String(flag[..<equals]), String(flag[flag.index(after: equals)...]), from: "launch argument")
            } else if dashed, [Self.nowPrefix, Self.seedPrefix].contains(flag) {
                // A following flag is no value: `-STUB_SEED -STUB_KILL_NETWORK` must not eat the switch.
                if let value = rest.first, !value.hasPrefix("-") {
                    rest.removeFirst()
                    setting(flag, value, from: "launch argument")
                } else {
                    problems.append("launch argument -\(flag): no value follows it")
                }
            }
        }

        var seen = Set<String>()
        self.templates = templates.filter { !$0.isEmpty && seen.insert($0).inserted }
        self.killSwitch = killSwitch
        self.now = now
        self.seed = seed
        let (recording, recordingProblems) = RecordingLaunchSettings.parse(arguments: arguments, environment: environment)
        self.recording = recording
        let (control, controlProblems) = ControlLaunchSettings.parse(environment: environment)
        self.control = control
        self.problems = problems + recordingProblems + controlProblems
        self.liveJournalPath = Self.value(of: Self.liveJournalVariable, arguments: arguments, environment: environment)
        // Honoured only in a launch that asks for stubs (or records, which `stubkit serve --record`
        // does for sockets): on its own the setting would turn a production launch into one whose
        // sockets go elsewhere while everything else is real.
        if let text = Self.value(of: WebSocketRoute.serverVariable, arguments: arguments, environment: environment),
           !templates.isEmpty || killSwitch || recording != nil {
            // The opt-in is read from the environment only, as runtime control's address is.
            let allowRemote = environment[WebSocketRoute.allowRemoteVariable].flatMap(Self.switchWord) ?? false
            switch WebSocketRoute.parseServer(text, allowRemote: allowRemote) {
            case .success(let url): webSocketServer = url
            case .failure(let problem): self.problems.append(problem.description)
            }
        }
    }

    /// A `NAME=value` setting from launch arguments (`NAME=value` or `-NAME value`, the last one wins)
    /// or else the environment; `nil` when absent or empty.
    static func value(of name: String, arguments: [String], environment: [String: String]) -> String? {
        var found = environment[name]
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            let dashed = argument.hasPrefix("-")
            let flag = dashed ? argument.drop { $0 == "-" } : Substring(argument)
            if flag.hasPrefix(name + "=") {
                found = String(flag.dropFirst(name.count + 1))
            } else if dashed, flag == name, let next = rest.popFirst() {
                found = next
            }
        }
        return found?.isEmpty == false ? found : nil
    }

    /// `YES`/`NO`, `true`/`false`, `1`/`0` (any case), as `UserDefaults` reads a boolean argument.
    static func booleanWord(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: return nil
        }
    }

    /// A switch variable's value: ``booleanWord(_:)``'s words, and `on`/`off`.
    static func switchWord(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "on": return true
        case "off": return false
        default: return booleanWord(text)
        }
    }

    /// Launch arguments that ask for this configuration: what a UI test passes to the app it launches.
    /// Runtime control is not among them: its token goes in the environment (``control``), which `ps` does not show.
    package var launchArguments: [String] {
        var arguments = templates.map { Self.templatePrefix + $0 } + (killSwitch ? [Self.killSwitchFlag] : [])
        if let now { arguments.append("\(Self.nowPrefix)=\(ISO8601DateFormatter().string(from: now))") }
        if let seed { arguments.append("\(Self.seedPrefix)=\(seed)") }
        if let recording { arguments += recording.launchArguments }
        if let liveJournalPath { arguments.append("\(Self.liveJournalVariable)=\(liveJournalPath)") }
        if let webSocketServer { arguments.append("\(WebSocketRoute.serverVariable)=\(webSocketServer.absoluteString)") }
        return arguments
    }
}
