/// What a process's launch arguments and environment ask of StubKit.
///
/// - `STUB_API_CALLS_<template>`: activate the bundle `<template>`. Several layer in order, later ones
///   over earlier ones. A leading `-` is accepted (`-STUB_API_CALLS_x`, the XCUITest habit).
/// - `STUB_KILL_NETWORK`: fail every request that no rule answers.
/// - The same as environment variables (for processes without launch arguments): `STUB_API_CALLS=a,b`
///   (ordered), `STUB_API_CALLS_<template>=1` (ordered by name), `STUB_KILL_NETWORK=1`. Environment
///   templates come first, so launch arguments layer over them. A value of `0`, `NO` or `false` turns one off.
public struct LaunchConfiguration: Sendable, Hashable {
    public static let templatePrefix = "STUB_API_CALLS_"
    public static let killSwitchFlag = "STUB_KILL_NETWORK"
    public static let templateListVariable = "STUB_API_CALLS"
    public static let bundlesPathVariable = "STUB_BUNDLES_PATH"

    /// Templates in activation order, each once (its first appearance counts).
    public var templates: [String]
    public var killSwitch: Bool

    public init(templates: [String] = [], killSwitch: Bool = false) {
        self.templates = templates
        self.killSwitch = killSwitch
    }

    /// Whether anything asks for stubbing at all; when not, an app starts exactly as in production.
    public var isEmpty: Bool { templates.isEmpty && !killSwitch }

    public init(arguments: [String], environment: [String: String]) {
        var templates: [String] = []
        var killSwitch = false

        func isOn(_ value: String) -> Bool {
            !["0", "no", "false", "off"].contains(value.lowercased())
        }

        if let list = environment[Self.templateListVariable] {
            templates += list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        for name in environment.keys.sorted() where name.hasPrefix(Self.templatePrefix) && isOn(environment[name]!) {
            templates.append(String(name.dropFirst(Self.templatePrefix.count)))
        }
        if let value = environment[Self.killSwitchFlag], isOn(value) { killSwitch = true }

        // The first argument is the executable.
        for argument in arguments.dropFirst() {
            let flag = argument.hasPrefix("-") ? String(argument.drop { $0 == "-" }) : argument
            if flag.hasPrefix(Self.templatePrefix) {
                templates.append(String(flag.dropFirst(Self.templatePrefix.count)))
            } else if flag == Self.killSwitchFlag {
                killSwitch = true
            }
        }

        var seen = Set<String>()
        self.templates = templates.filter { !$0.isEmpty && seen.insert($0).inserted }
        self.killSwitch = killSwitch
    }

    /// Launch arguments that ask for this configuration: what a UI test passes to the app it launches.
    public var launchArguments: [String] {
        templates.map { Self.templatePrefix + $0 } + (killSwitch ? [Self.killSwitchFlag] : [])
    }
}

import Foundation
