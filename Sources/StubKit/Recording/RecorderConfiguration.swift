import Foundation

/// What a recording run asks for: which bundle to write, when to go to the network, which request
/// fields are volatile, and what must never be written.
///
/// From launch arguments or the environment (what ``RecordingLaunchSettings`` carries):
/// `STUB_RECORD=<template>`, `STUB_RECORD_PATH=<folder>` (else the first folder of
/// `STUB_BUNDLES_PATH`), `STUB_RECORD_MODE=missing|all|once`,
/// `STUB_RECORD_IGNORE=body.email,query.ts,header.X-Request-ID`,
/// `STUB_RECORD_REDACT=name,…` (more names to redact), `STUB_RECORD_KEEP=name,…` (default names not to redact),
/// `STUB_RECORD_PRETTY=1`, `STUB_RECORD_HOSTS=api.example.com,*.example.org` (record only these hosts).
public struct RecorderConfiguration: Sendable, Hashable {
    /// When a request goes to the network and is recorded.
    public enum Mode: String, Sendable, CaseIterable {
        /// Requests the active bundles answer are replayed; the rest go to the network and are added
        /// (vcrpy's `new_episodes`). The default.
        case missing
        /// Every request goes to the network; the bundle is replaced by this run's recording (the values a
        /// test saved for it with `RecordedValues` stay).
        case all
        /// Record only when the bundle does not exist yet; otherwise replay it with the kill switch on.
        case once
    }

    /// A request field whose value changes from run to run (a random e-mail, a timestamp), left out of
    /// the recorded conditions so a replay with another value still matches.
    public enum VolatileField: Sendable, Hashable, CustomStringConvertible {
        /// A field of a JSON request body, as a path of object keys (`body.user.email`).
        case body([String])
        /// A query item, by name.
        case query(String)
        /// A request header. Recorded rules never match on request headers, so this only documents the
        /// intent (and is accepted so one ignore list serves every tool).
        case header(String)

        /// Parses `body.email`, `query.ts` or `header.X-Request-ID`.
        public init?(parsing text: String) {
            let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty else { return nil }
            switch parts[0] {
            case "body": self = .body(parts[1].split(separator: ".").map(String.init))
            case "query": self = .query(parts[1])
            case "header": self = .header(parts[1])
            default: return nil
            }
        }

        /// The form ``init(parsing:)`` reads (`body.email`).
        public var description: String {
            switch self {
            case .body(let path): return "body." + path.joined(separator: ".")
            case .query(let name): return "query." + name
            case .header(let name): return "header." + name
            }
        }
    }

    /// The template name of the bundle written (a folder name).
    public var template: String
    /// The folder the bundle folder is created in.
    public var folder: URL
    /// When a request goes to the network and is recorded.
    public var mode: Mode
    /// Request fields left out of the recorded conditions.
    public var ignored: [VolatileField]
    /// Header, query-item and JSON-field names redacted on top of the default ones (authorization and cookie headers, tokens, passwords, secrets).
    public var redact: [String]
    /// Default names not to redact.
    public var keep: [String]
    /// Write JSON response bodies pretty-printed with sorted keys instead of byte-exact.
    public var prettyJSON: Bool
    /// Hosts to record (`api.example.com`, or `*.example.com` for it and its subdomains), compared
    /// case-insensitively; empty means every host. A request to another host is not recorded: the
    /// active bundles answer it, else it goes to the network (or is refused with the kill switch on).
    public var hosts: [String]

    /// A recording of `template` into `folder`, with the defaults above unless given.
    public init(template: String, folder: URL, mode: Mode = .missing, ignored: [VolatileField] = [],
                redact: [String] = [], keep: [String] = [], prettyJSON: Bool = false, hosts: [String] = []) {
        self.template = template
        self.folder = folder
        self.mode = mode
        self.ignored = ignored
        self.redact = redact
        self.keep = keep
        self.prettyJSON = prettyJSON
        self.hosts = hosts
    }

    /// The bundle folder: `<folder>/<template>`, or the existing `<template>.bundle` there.
    public var bundleFolder: URL {
        let dotted = folder.appendingPathComponent("\(template).bundle", isDirectory: true)
        if FileManager.default.fileExists(atPath: dotted.path) { return dotted }
        return folder.appendingPathComponent(template, isDirectory: true)
    }

    /// Whether the bundle already holds a rules file.
    package var bundleExists: Bool {
        BundleLocator.isBundle(bundleFolder) && RuleKeys.rulesFileNames.contains {
            FileManager.default.fileExists(atPath: bundleFolder.appendingPathComponent($0).path)
        }
    }

    /// Ignored query item names.
    var ignoredQueryNames: Set<String> {
        Set(ignored.compactMap { if case .query(let name) = $0 { return name } else { return nil } })
    }

    /// Ignored JSON body paths.
    var ignoredBodyPaths: [[String]] {
        ignored.compactMap { if case .body(let path) = $0 { return path } else { return nil } }
    }
}
