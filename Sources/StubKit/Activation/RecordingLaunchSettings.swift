import Foundation

/// Record mode as launch arguments and environment variables ask for it, before the folder is known.
///
/// `STUB_RECORD=<template>` turns it on; `STUB_RECORD_PATH`, `STUB_RECORD_MODE`, `STUB_RECORD_IGNORE`,
/// `STUB_RECORD_REDACT`, `STUB_RECORD_KEEP`, `STUB_RECORD_PRETTY` and `STUB_RECORD_HOSTS` refine it. Each is read from the
/// environment, then from launch arguments as `NAME=value` or Apple's `-NAME value` (arguments win).
public struct RecordingLaunchSettings: Sendable, Hashable {
    package static let templateKey = "STUB_RECORD"
    package static let pathKey = "STUB_RECORD_PATH"
    package static let modeKey = "STUB_RECORD_MODE"
    package static let ignoreKey = "STUB_RECORD_IGNORE"
    package static let redactKey = "STUB_RECORD_REDACT"
    package static let keepKey = "STUB_RECORD_KEEP"
    package static let prettyKey = "STUB_RECORD_PRETTY"
    package static let hostsKey = "STUB_RECORD_HOSTS"
    static let keys = [templateKey, pathKey, modeKey, ignoreKey, redactKey, keepKey, prettyKey, hostsKey]

    /// The template name of the bundle to record (`STUB_RECORD`).
    public var template: String
    /// `STUB_RECORD_PATH`; `nil` means the first folder of `STUB_BUNDLES_PATH`.
    public var path: String?
    /// When to go to the network and record (`STUB_RECORD_MODE`); ``RecorderConfiguration/Mode/missing`` by default.
    public var mode: RecorderConfiguration.Mode = .missing
    /// Request fields left out of recorded conditions (`STUB_RECORD_IGNORE`).
    public var ignored: [RecorderConfiguration.VolatileField] = []
    /// More header, query-item and JSON-field names to redact (`STUB_RECORD_REDACT`).
    public var redact: [String] = []
    /// Default names not to redact (`STUB_RECORD_KEEP`).
    public var keep: [String] = []
    /// Write JSON bodies pretty-printed with sorted keys (`STUB_RECORD_PRETTY`).
    public var prettyJSON = false
    /// `STUB_RECORD_HOSTS`: record only requests to these hosts (`api.example.com`, `*.example.com`);
    /// empty means every host.
    public var hosts: [String] = []

    /// The settings in `arguments` and `environment`, or `nil` without `STUB_RECORD`; problems name
    /// the argument or variable that could not be read.
    static func parse(arguments: [String], environment: [String: String]) -> (settings: RecordingLaunchSettings?, problems: [String]) {
        var values: [String: (value: String, source: String)] = [:]
        for key in keys { if let value = environment[key] { values[key] = (value, "environment variable \(key)") } }
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            let dashed = argument.hasPrefix("-")
            let flag = dashed ? String(argument.drop { $0 == "-" }) : argument
            if let equals = flag.firstIndex(of: "="), keys.contains(String(flag[..<equals])) {
                let key = String(flag[..<equals])
                values[key] = (String(flag[flag.index(after: equals)...]), "launch argument \(key)")
            } else if dashed, keys.contains(flag), let value = rest.popFirst() {
                values[flag] = (value, "launch argument -\(flag)")
            }
        }
        guard let template = values[templateKey], !template.value.isEmpty,
              StubLaunchSettings.booleanWord(template.value) != false else { return (nil, []) }
        var problems: [String] = []
        var settings = RecordingLaunchSettings(template: template.value)
        if !BundleLocator.isValidTemplateName(template.value) {
            problems.append("\(template.source)=\(template.value): a template name is the name of a bundle folder, without '/', '\\' or '..'")
        }
        settings.path = values[pathKey]?.value
        if let mode = values[modeKey] {
            if let parsed = RecorderConfiguration.Mode(rawValue: mode.value.lowercased()) { settings.mode = parsed } else {
                problems.append("\(mode.source)=\(mode.value): expected one of missing, all, once")
            }
        }
        if let ignore = values[ignoreKey] {
            for item in list(ignore.value) {
                if let field = RecorderConfiguration.VolatileField(parsing: item) { settings.ignored.append(field) } else {
                    problems.append("\(ignore.source): '\(item)' is not body.<field>[.<field>…], query.<name> or header.<name>")
                }
            }
        }
        settings.redact = values[redactKey].map { list($0.value) } ?? []
        settings.keep = values[keepKey].map { list($0.value) } ?? []
        settings.hosts = values[hostsKey].map { list($0.value) } ?? []
        if let pretty = values[prettyKey] { settings.prettyJSON = StubLaunchSettings.booleanWord(pretty.value) ?? true }
        return (settings, problems)
    }

    /// Launch arguments that ask for these settings, every one of them (what
    /// ``StubLaunchSettings/launchArguments`` passes on to a child app); defaults are left out.
    package var launchArguments: [String] {
        var arguments = ["\(Self.templateKey)=\(template)", "\(Self.modeKey)=\(mode.rawValue)"]
        if let path { arguments.append("\(Self.pathKey)=\(path)") }
        if !ignored.isEmpty { arguments.append("\(Self.ignoreKey)=\(ignored.map(\.description).joined(separator: ","))") }
        if !redact.isEmpty { arguments.append("\(Self.redactKey)=\(redact.joined(separator: ","))") }
        if !keep.isEmpty { arguments.append("\(Self.keepKey)=\(keep.joined(separator: ","))") }
        if prettyJSON { arguments.append("\(Self.prettyKey)=1") }
        if !hosts.isEmpty { arguments.append("\(Self.hostsKey)=\(hosts.joined(separator: ","))") }
        return arguments
    }

    private static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The full configuration, recording into `folder`.
    package func configuration(folder: URL) -> RecorderConfiguration {
        RecorderConfiguration(template: template, folder: folder, mode: mode, ignored: ignored, redact: redact, keep: keep,
                            prettyJSON: prettyJSON, hosts: hosts)
    }
}
