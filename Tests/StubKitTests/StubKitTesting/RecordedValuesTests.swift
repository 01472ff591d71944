import Foundation
import Testing
@testable import StubKit
import StubKitTesting
import StubKitTestSupport

/// Test inputs saved beside a recording and read back at replay, from the launch configuration the
/// app is started with, through a real file.
struct RecordedValuesTests {
    func recordingConfiguration(_ folder: TemporaryFolder, mode: RecorderConfiguration.Mode) -> AppLaunchConfiguration {
        AppLaunchConfiguration(recording: .recording("signup", into: folder.url.path, mode: mode))
    }

    func replayConfiguration(_ folder: TemporaryFolder) -> AppLaunchConfiguration {
        AppLaunchConfiguration(templates: ["signup"], killSwitch: true, bundlePaths: [folder.url.path])
    }

    func fileText(_ folder: TemporaryFolder) throws -> String {
        try String(contentsOf: folder.url.appendingPathComponent("signup/recordedValues.json"), encoding: .utf8)
    }

    @Test("recording generates and saves each value; a replay of the same bundle reads the same values without generating")
    func recordThenReplay() throws {
        let folder = try TemporaryFolder()
        let recording = try RecordedValues(for: recordingConfiguration(folder, mode: .all))
        #expect(recording.mode == .record)
        let email = try recording.recordedValue("email") { "user-\(UUID().uuidString)@example.test" }
        let name = try recording.recordedValue("name") { "Zoë \"Z\" / O'Neil" }
        #expect(try recording.recordedValue("email") { "another@example.test" } == email, "one value per name")
        // Sorted keys, pretty, no escaped slashes, a final newline: a file that reads well in a diff.
        #expect(try fileText(folder) == "{\n  \"email\" : \"\(email)\",\n  \"name\" : \"Zoë \\\"Z\\\" / O'Neil\"\n}\n")

        try folder.bundle("signup", ["stubsRules.json": "[]"])
        let replay = try RecordedValues(for: replayConfiguration(folder))
        #expect(replay.mode == .replay)
        #expect(replay.file.path == folder.url.appendingPathComponent("signup/recordedValues.json").path)
        var generated = 0
        #expect(try replay.recordedValue("email") { generated += 1; return "new" } == email)
        #expect(try replay.recordedValue("name") { generated += 1; return "new" } == name)
        #expect(generated == 0)
    }

    @Test("a replay asked for a name the file lacks throws, naming the name and the file, and generates nothing")
    func replayMiss() throws {
        let folder = try TemporaryFolder()
        try folder.bundle("signup", ["stubsRules.json": "[]", "recordedValues.json": #"{ "email": "a@example.test" }"#])
        let replay = try RecordedValues(for: replayConfiguration(folder))
        let file = folder.url.appendingPathComponent("signup/recordedValues.json").path
        var generated = false
        let error = try #require(throws: RecordedValuesError.self) {
            _ = try replay.recordedValue("phone") { generated = true; return "555" }
        }
        #expect(!generated)
        #expect(error.name == "phone")
        #expect(error.description.hasPrefix(file + ": no recorded value named 'phone'"), "\(error)")
        #expect(error.description.contains("the recording was made without it"), "\(error)")

        // A bundle recorded without any values: the message says the file is missing.
        let bare = try TemporaryFolder()
        try bare.bundle("signup", ["stubsRules.json": "[]"])
        let missing = try #require(throws: RecordedValuesError.self) {
            _ = try RecordedValues(for: replayConfiguration(bare)).recordedValue("email") { "x" }
        }
        #expect(missing.description.contains("no recorded value named 'email'") && missing.description.contains("the file does not exist"), "\(missing)")
    }

    @Test("mode once records while the bundle has no rules file and replays once it has")
    func onceDecidesAsTheAppDoes() throws {
        let folder = try TemporaryFolder()
        let configuration = recordingConfiguration(folder, mode: .once)
        let first = try RecordedValues(for: configuration)
        #expect(first.mode == .record)
        let email = try first.recordedValue("email") { "first@example.test" }
        try folder.bundle("signup", ["stubsRules.json": "[]"])   // what the app's first recorded request writes

        let second = try RecordedValues(for: configuration)
        #expect(second.mode == .replay)
        #expect(try second.recordedValue("email") { "second@example.test" } == email)
        #expect(throws: RecordedValuesError.self) { try second.recordedValue("phone") { "555" } }
    }

    @Test("mode missing reuses saved values and generates and adds new ones, keeping the rest of the file")
    func missingAddsNewNames() throws {
        let folder = try TemporaryFolder()
        try folder.bundle("signup", ["stubsRules.json": "[]", "recordedValues.json": #"{"email":"kept@example.test","unused":"x"}"#])
        let values = try RecordedValues(for: recordingConfiguration(folder, mode: .missing))
        #expect(values.mode == .recordMissing)
        #expect(try values.recordedValue("email") { "new@example.test" } == "kept@example.test")
        #expect(try values.recordedValue("phone") { "555-0100" } == "555-0100")
        #expect(try fileText(folder) == "{\n  \"email\" : \"kept@example.test\",\n  \"phone\" : \"555-0100\",\n  \"unused\" : \"x\"\n}\n")
        #expect(values.values == ["email": "kept@example.test", "phone": "555-0100", "unused": "x"])
    }

    @Test("several threads and two stores of one bundle at once: one value per name, every name saved")
    func concurrentUse() throws {
        let folder = try TemporaryFolder()
        let configuration = recordingConfiguration(folder, mode: .missing)
        let stores = [try RecordedValues(for: configuration), try RecordedValues(for: configuration)]
        let names = (0..<40).map { "name\($0)" }
        let seen = Locked<[String: Set<String>]>([:])
        DispatchQueue.concurrentPerform(iterations: 16) { worker in
            let store = stores[worker % 2]
            // Each store asks its own half of the names first, then every name, so both add names at once.
            let own = names.enumerated().filter { $0.offset % 2 == worker % 2 }.map(\.element)
            for name in own + names {
                let value = try? store.recordedValue(name) { "\(name)-worker\(worker)" }
                seen.withLock { _ = $0[name, default: []].insert(value ?? "error") }
            }
        }
        let onDisk = try RecordedValues(bundle: folder.url.appendingPathComponent("signup"), mode: .replay).values
        #expect(Set(onDisk.keys) == Set(names), "a save lost another store's names: \(names.filter { onDisk[$0] == nil })")
        for (name, values) in seen.withLock({ $0 }) {
            #expect(values.count == 1 && values.first == onDisk[name], "\(name): threads and stores got \(values), the file holds \(onDisk[name] ?? "nothing")")
        }
    }

    @Test("every save replaces the file in one rename: a reader never sees a half-written file, and no temporary is left")
    func atomicWrite() throws {
        let folder = try TemporaryFolder()
        let values = try RecordedValues(for: recordingConfiguration(folder, mode: .all))
        _ = try values.recordedValue("first") { "1" }
        let file = values.file
        func inode() throws -> Int { try #require(FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int) }
        let done = Locked(false)
        let bad = Locked<[String]>([])
        let reader = Thread {
            while !done.withLock({ $0 }) {
                guard let data = FileManager.default.contents(atPath: file.path) else { bad.withLock { $0.append("missing") }; continue }
                if (try? JSONSerialization.jsonObject(with: data)) as? [String: String] == nil {
                    bad.withLock { $0.append(String(decoding: data, as: UTF8.self)) }
                }
            }
        }
        reader.start()
        // Each save's new file is made while the old one still exists, so it cannot have the old one's
        // inode; across many saves a freed number may come back, so each save is compared with the one before.
        var rewrittenInPlace = 0
        for index in 0..<300 {
            let before = try inode()
            _ = try values.recordedValue("value\(index)") { String(repeating: "x", count: 200) }
            if try inode() == before { rewrittenInPlace += 1 }
        }
        done.withLock { $0 = true }
        #expect(rewrittenInPlace == 0, "\(rewrittenInPlace) of 300 saves rewrote the file in place instead of replacing it")
        #expect(bad.withLock { $0.prefix(3) }.isEmpty, "a reader saw an incomplete file")
        let entries = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(entries == ["recordedValues.json"], "\(entries)")
    }

    @Test("mode all: a value a test made once, before launching the app, stays in the folder when the app records anew")
    func valuesSurviveTheAppsReplace() throws {
        let folder = try TemporaryFolder()
        // What an earlier recording left: rules, a response file, and a leftover of an interrupted append.
        try folder.bundle("signup", ["stubsRules.json": "[]", "old.json": "{}", ".partial-1": ""])
        let values = try RecordedValues(for: recordingConfiguration(folder, mode: .all))
        let email = try values.recordedValue("email") { "early@example.test" }
        // What the app's recorder does at launch in mode all.
        let bundle = folder.url.appendingPathComponent("signup")
        _ = try BundleWriter(folder: bundle, replacing: true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundle.path) == ["recordedValues.json"])
        // The test never asks again: the replay still finds the value the recorded requests carry.
        try folder.bundle("signup", ["stubsRules.json": "[]"])
        #expect(try RecordedValues(for: replayConfiguration(folder)).recordedValue("email") { "other" } == email)
    }

    @Test("mode all records values anew: an earlier recording's values are dropped, whether the app starts recording before the first value or after", arguments: [false, true])
    func recordDropsEarlierValues(appLaunchesFirst: Bool) throws {
        let folder = try TemporaryFolder()
        try folder.bundle("signup", ["stubsRules.json": "[]", "recordedValues.json": #"{"email":"old@example.test","unused":"old"}"#])
        let bundle = folder.url.appendingPathComponent("signup")
        let values = try RecordedValues(for: recordingConfiguration(folder, mode: .all))
        if appLaunchesFirst { _ = try BundleWriter(folder: bundle, replacing: true) }
        #expect(try values.recordedValue("email") { "new@example.test" } == "new@example.test")
        if !appLaunchesFirst { _ = try BundleWriter(folder: bundle, replacing: true) }
        #expect(try fileText(folder) == "{\n  \"email\" : \"new@example.test\"\n}\n")
        // Another store of the same run (another test) shares the run's value and adds its own.
        let other = try RecordedValues(for: recordingConfiguration(folder, mode: .all))
        #expect(try other.recordedValue("email") { "third@example.test" } == "new@example.test")
        #expect(try other.recordedValue("phone") { "555-0100" } == "555-0100")
        #expect(try RecordedValues(bundle: bundle, mode: .replay).values == ["email": "new@example.test", "phone": "555-0100"])
    }

    @Test("mode all records anew into a folder that holds only the values of a run stopped before its first request, whatever hidden leftovers lie beside them")
    func allReplacesAFolderWithOnlyValues() throws {
        let folder = try TemporaryFolder()
        let values = try RecordedValues(for: recordingConfiguration(folder, mode: .all))
        _ = try values.recordedValue("email") { "early@example.test" }
        let bundle = folder.url.appendingPathComponent("signup")
        // A save killed between writing its temporary and renaming it, and a Finder's file.
        try folder.bundle("signup", [".recordedValues.json.tmp-1B2C": #"{"email":"#, ".DS_Store": ""])
        #expect(BundleLoader(options: .lint).load(folder: bundle).diagnostics.map(\.code) == [.missingRulesFile])
        #expect(throws: Never.self) { _ = try BundleWriter(folder: bundle, replacing: true) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundle.path) == ["recordedValues.json"])
        // Any other file, or a hidden folder, still makes the folder one mode all does not empty.
        try folder.bundle("signup", ["notes.json": "{}"])
        #expect(throws: RecordingError.self) { _ = try BundleWriter(folder: bundle, replacing: true) }
        let git = try TemporaryFolder()
        try git.bundle("signup", [".git/HEAD": "ref: refs/heads/main", "recordedValues.json": "{}"])
        #expect(throws: RecordingError.self) { _ = try BundleWriter(folder: git.url.appendingPathComponent("signup"), replacing: true) }
        #expect(FileManager.default.fileExists(atPath: git.url.appendingPathComponent("signup/.git/HEAD").path))
    }

    @Test("a save removes the temporary of an earlier save that crashed before renaming it")
    func saveRemovesLeftoverTemporaries() throws {
        let folder = try TemporaryFolder()
        try folder.bundle("signup", ["stubsRules.json": "[]", ".recordedValues.json.tmp-1B2C": "{"])
        _ = try RecordedValues(for: recordingConfiguration(folder, mode: .missing)).recordedValue("email") { "a@example.test" }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("signup").path).sorted() == ["recordedValues.json", "stubsRules.json"])
    }

    struct BadFile: Sendable, CustomTestStringConvertible {
        var label: String
        var bytes: [UInt8]
        var message: String
        var testDescription: String { label }
    }

    static let badFiles: [BadFile] = [
        BadFile(label: "not UTF-8", bytes: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x22, 0x61, 0x22, 0x7D], message: "is not UTF-8 text"),
        BadFile(label: "not JSON", bytes: Array("{\n  \"email\": \"a\",\n  oops\n}".utf8), message: "is not valid JSON: 3:3:"),
        BadFile(label: "an array", bytes: Array(#"["a@example.test"]"#.utf8), message: "1:1: expected a JSON object of names to strings, found an array"),
        BadFile(label: "a number value", bytes: Array("{\n  \"age\": 42\n}".utf8), message: "2:10: the value of 'age' is a number; recorded values are strings"),
        BadFile(label: "a name twice", bytes: Array("{\"a\": \"1\",\n\"a\": \"2\"}".utf8), message: "2:1: 'a' appears twice; keep one"),
    ]

    @Test("a values file that cannot be used is an error naming the file, the place and what is wrong", arguments: badFiles)
    func badFile(_ bad: BadFile) throws {
        let folder = try TemporaryFolder()
        let file = try folder.file("signup/recordedValues.json", data: Data(bad.bytes))
        try folder.bundle("signup", ["stubsRules.json": "[]"])
        for configuration in [replayConfiguration(folder), recordingConfiguration(folder, mode: .missing)] {
            let error = try #require(throws: RecordedValuesError.self) { try RecordedValues(for: configuration) }
            #expect(error.description.hasPrefix(file.path + ": " + bad.message), "\(error)")
        }
        // Recording everything anew never reads the old file.
        #expect(throws: Never.self) { try RecordedValues(for: recordingConfiguration(folder, mode: .all)) }
    }

    @Test("a configuration that names no recording the runner can find is an error that says what to set")
    func configurationWithoutRecording() throws {
        let noFolder = try #require(throws: RecordedValuesError.self) {
            try RecordedValues(for: AppLaunchConfiguration(recording: .recording("signup")))
        }
        #expect(noFolder.description.contains("set the recording's path or the configuration's bundlePaths"), "\(noFolder)")
        let nothing = try #require(throws: RecordedValuesError.self) { try RecordedValues(for: AppLaunchConfiguration()) }
        #expect(nothing.description.contains("neither records nor replays"), "\(nothing)")
        let unknown = try #require(throws: RecordedValuesError.self) {
            try RecordedValues(for: AppLaunchConfiguration(templates: ["nope"], bundlePaths: [try TemporaryFolder().url.path]))
        }
        #expect(unknown.description.contains("'nope'"), "\(unknown)")
        // The first bundle path is the recording folder, as the app picks it.
        let folder = try TemporaryFolder()
        let values = try RecordedValues(for: AppLaunchConfiguration(recording: .recording("signup"), bundlePaths: [folder.url.path, "/elsewhere"]))
        #expect(values.file.path == folder.url.appendingPathComponent("signup/recordedValues.json").path)
    }

    @Test("the linter takes the values file as part of the bundle, and still flags a stray file beside it")
    func lintAcceptsTheValuesFile() throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("signup", [
            "stubsRules.json": #"[ { "method": "POST", "path": "/signup", "response": "created.json" } ]"#,
            "created.json": #"{"created":true}"#,
            "recordedValues.json": "{\n  \"email\" : \"a@example.test\"\n}\n",
            "stray.json": "{}",
            "nested/recordedValues.json": "{}",
        ])
        let result = BundleLoader(options: .lint).load(folder: bundle)
        let unused = result.diagnostics.filter { $0.code == .unusedFile }.map(\.file)
        // Only the bundle's own file: one deeper down is as stray as any other.
        #expect(unused.sorted() == ["nested/recordedValues.json", "stray.json"].map { bundle.appendingPathComponent($0).path }, "\(result.diagnostics.map(\.description))")
        #expect(result.diagnostics.count == 2, "\(result.diagnostics.map(\.description))")
    }
}
