// stubdemo: a stand-in for an app under UI test.
//
// It does at start-up exactly what an app does (activate StubKit from its own launch arguments and
// environment), then performs the requests named on its command line through URLSession and prints
// one JSON object per request on its own line.
//
//   stubdemo [STUB_API_CALLS_<template>…] [STUB_KILL_NETWORK] [--session shared|custom] [--task data|async|upload|download|async-download]
//            [--print-launch] [--interactive] METHOD URL [--data BODY] [--header 'Name: value']… [METHOD URL …]
//
// --print-launch prints, before any request, one JSON line {"launch": …} with what the app-side
// LaunchOverrides read (feature and automation flags, now, seed). --interactive keeps running after the
// command line's requests and reads one request per line from standard input (words split as a shell
// does, so --data '{"a": 1}' works) until it closes, as a UI test drives an app step by step.
//
// STUB_JOURNAL_HAR=<file> and STUB_JOURNAL_HTML=<file> write the request journal when it exits; in
// record mode (STUB_RECORD=<template>) it prints the recording summary to stderr on exit.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit

enum SessionKind: String { case shared, custom }
enum TaskKind: String { case data, async, upload, download, asyncDownload = "async-download" }

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("stubdemo: \(message)\nusage: stubdemo [STUB_…] [--session shared|custom] [--task data|async|upload|download|async-download] METHOD URL [--data BODY] [--header 'Name: value'] …\n".utf8))
    exit(2)
}

// MARK: Start-up, as an app does it

let activation: StubActivation?
do {
    activation = try StubActivation.activate(register: false)
} catch {
    FileHandle.standardError.write(Data("stubdemo: \(error.description)\n".utf8))
    exit(3)
}

// MARK: Command line

var sessionKind = SessionKind.shared
var taskKind = TaskKind.data
var interactive = false
var printLaunch = false
var requestWords: [String] = []
var arguments = Array(CommandLine.arguments.dropFirst())[...]
while let argument = arguments.popFirst() {
    // Launch settings were read by StubActivation and LaunchOverrides, as an app's would be; in Apple's
    // `-NAME value` form, the value goes with them (a switch's value only when it is a boolean word).
    let setting = argument.drop(while: { $0 == "-" })
    if setting.hasPrefix("STUB_") {
        if argument.hasPrefix("-"), !setting.contains("="), let next = arguments.first {
            let isSwitch = setting.hasPrefix(StubLaunchSettings.templatePrefix) || setting == StubLaunchSettings.killSwitchFlag
            let booleanWords: Set<String> = ["yes", "no", "true", "false", "1", "0"]
            if !isSwitch || booleanWords.contains(next.lowercased()) { arguments.removeFirst() }
        }
        continue
    }
    switch argument {
    case "--session":
        guard let value = arguments.popFirst(), let kind = SessionKind(rawValue: value) else { usage("--session takes shared or custom") }
        sessionKind = kind
    case "--task":
        guard let value = arguments.popFirst(), let kind = TaskKind(rawValue: value) else { usage("--task takes data, async, upload, download or async-download") }
        taskKind = kind
    case "--interactive":
        interactive = true
    case "--print-launch":
        printLaunch = true
    case "--data", "--header":
        // Its value is the request's, never an option of stubdemo (a body may start with '-').
        requestWords.append(argument)
        if let value = arguments.popFirst() { requestWords.append(value) }
    default:
        requestWords.append(argument)
    }
}
let specs: [RequestSpec]
do {
    specs = try requestSpecs(from: requestWords)
} catch {
    usage(error.message)
}
if specs.isEmpty, !interactive, !printLaunch {
    usage("nothing to do: give METHOD URL, --interactive or --print-launch")
}

// MARK: What the test runner hands the app besides stubs

let bridge: LaunchOverrides
do {
    bridge = try LaunchOverrides.current(activation: activation)
} catch {
    FileHandle.standardError.write(Data("stubdemo: \(error.description)\n".utf8))
    exit(3)
}
if printLaunch {
    func json(_ flags: LaunchFlags) -> Any {
        (try? JSONSerialization.jsonObject(with: Data(((try? flags.encoded()) ?? "{}").utf8)) as? [String: Any])?["flags"] ?? [:]
    }
    var launch: [String: Any] = ["featureFlags": json(bridge.featureFlags), "automationFlags": json(bridge.automationFlags),
                                 "isTestLaunch": bridge.isTestLaunch]
    if let now = bridge.now { launch["now"] = ISO8601DateFormatter().string(from: now) }
    if let seed = bridge.seed { launch["seed"] = seed }
    if let value = bridge.automationFlags.bool("simulateUserAlreadyLoggedIn") { launch["simulateUserAlreadyLoggedIn"] = value }
    let line = try JSONSerialization.data(withJSONObject: ["launch": launch], options: [.sortedKeys, .withoutEscapingSlashes])
    FileHandle.standardOutput.write(line + Data("\n".utf8))
}

// MARK: The session, as the app would make it

let session: URLSession
switch sessionKind {
case .shared:
    activation?.engine.register()
    session = URLSession.shared
case .custom:
    let configuration = URLSessionConfiguration.ephemeral
    activation?.engine.install(into: configuration)
    session = URLSession(configuration: configuration)
}

// MARK: Requests

func record(_ spec: RequestSpec, data: Data?, response: URLResponse?, error: (any Error)?) -> [String: Any] {
    var object: [String: Any] = ["method": spec.method, "url": spec.url.absoluteString]
    if let http = response as? HTTPURLResponse {
        object["status"] = http.statusCode
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers[String(describing: name)] = String(describing: value) }
        object["headers"] = headers
    }
    if let data {
        if let text = String(data: data, encoding: .utf8) {
            object["body"] = text
        } else {
            object["body"] = data.base64EncodedString()
            object["bodyEncoding"] = "base64"
        }
    }
    if let error {
        let nsError = error as NSError
        object["error"] = ["domain": nsError.domain, "code": nsError.code, "description": nsError.localizedDescription]
    }
    return object
}

func perform(_ spec: RequestSpec, taskKind: TaskKind, session: URLSession) async -> [String: Any] {
    var request = URLRequest(url: spec.url)
    request.httpMethod = spec.method
    for (name, value) in spec.headers { request.addValue(value, forHTTPHeaderField: name) }
    switch taskKind {
    case .async:
        request.httpBody = spec.body
        do {
            let (data, response) = try await session.data(for: request)
            return record(spec, data: data, response: response, error: nil)
        } catch {
            return record(spec, data: nil, response: nil, error: error)
        }
    case .asyncDownload:
        // On Linux StubKit fails stubbed downloads with an error that says why (see the README);
        // this proves download(for:) gets that error instead of crashing inside FoundationNetworking.
        do {
            let (fileURL, response) = try await session.download(for: request)
            return record(spec, data: try Data(contentsOf: fileURL), response: response, error: nil)
        } catch {
            return record(spec, data: nil, response: nil, error: error)
        }
    case .data, .upload, .download:
        return await withCheckedContinuation { continuation in
            let done: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
                nonisolated(unsafe) let object = record(spec, data: data, response: response, error: error)
                continuation.resume(returning: object)
            }
            let task: URLSessionTask
            switch taskKind {
            case .upload:
                task = session.uploadTask(with: request, from: spec.body ?? Data()) { done($0, $1, $2) }
            case .download:
                task = session.downloadTask(with: request) { fileURL, response, error in
                    if let fileURL {
                        done(try? Data(contentsOf: fileURL), response, error)
                    } else if error == nil {
                        done(nil, response, URLError(.cannotOpenFile, userInfo: [NSLocalizedDescriptionKey: "download finished without a file URL"]))
                    } else {
                        done(nil, response, error)
                    }
                }
            default:
                request.httpBody = spec.body
                task = session.dataTask(with: request) { done($0, $1, $2) }
            }
            task.resume()
        }
    }
}

func printResult(of spec: RequestSpec) async throws {
    let object = await perform(spec, taskKind: taskKind, session: session)
    let line = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    FileHandle.standardOutput.write(line + Data("\n".utf8))
}

for spec in specs {
    try await printResult(of: spec)
}

// Interactive: one request per line until standard input closes; a bad line is reported as a JSON
// line with "usage", and the app keeps running (a UI test's typo must not look like a crash).
while interactive, let line = readLine(strippingNewline: true) {
    do {
        for spec in try requestSpecs(from: try shellWords(line)) { try await printResult(of: spec) }
    } catch let error as UsageError {
        let object = try JSONSerialization.data(withJSONObject: ["usage": error.message, "line": line], options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(object + Data("\n".utf8))
    }
}

// MARK: Exit: hand the journal to the test runner in the other process

let environment = ProcessInfo.processInfo.environment
if let engine = activation?.engine {
    // Record mode: what was recorded, replayed and redacted (stderr, so stdout stays one JSON line per request).
    if let summary = engine.recorder?.summary { FileHandle.standardError.write(Data("\(summary)\n".utf8)) }
    do {
        if let path = environment["STUB_JOURNAL_HAR"] { try engine.journal.writeHAR(to: URL(fileURLWithPath: path)) }
        if let path = environment["STUB_JOURNAL_HTML"] { try JournalReport(engine: engine).write(to: URL(fileURLWithPath: path)) }
    } catch {
        FileHandle.standardError.write(Data("stubdemo: could not write the journal: \(error.localizedDescription)\n".utf8))
        exit(4)
    }
}
