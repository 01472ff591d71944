// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "StubKit",
    // No watchOS: it does not support custom URLProtocols, which the library is built on.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16)],
    products: [
        .library(name: "StubKit", targets: ["StubKit"]),
        // For UI-test targets and test runners: launch configuration, live journal, app launcher.
        .library(name: "StubKitTesting", targets: ["StubKitTesting"]),
        // For unit and integration test targets: a Swift Testing trait and an XCTest helper giving each test its own engine.
        .library(name: "StubKitUnitTesting", targets: ["StubKitUnitTesting"]),
        // For UI-test targets and test runners: the app's live journal checked against the API's OpenAPI
        // document. Empty unless the dependent turns the `Tools` trait on (it brings OpenAPIKit and Yams).
        .library(name: "StubKitContract", targets: ["StubKitContract"]),
        .executable(name: "stubdemo", targets: ["stubdemo"]),
        .executable(name: "stublint", targets: ["stublint"]),
        .executable(name: "stubbench", targets: ["stubbench"]),
        .executable(name: "stubkit", targets: ["stubkit"]),
        // The local server benchmark's floor (Tools/scripts/bench-server); apps never link it.
        .executable(name: "stubkit-nio-hello", targets: ["nio-hello"]),
        // The WebSocket benchmark's floor (Tools/scripts/bench-websocket); apps never link it.
        .executable(name: "stubkit-nio-ws", targets: ["nio-ws"]),
        // stublint as SwiftPM plugins: `swift package lint-stubs`, and a lint on every build of a target
        // that adds StubLintPlugin. They run stublint, so they need the `Tools` trait (docs/plugins.md).
        .plugin(name: "LintStubs", targets: ["LintStubs"]),
        .plugin(name: "StubLintPlugin", targets: ["StubLintPlugin"]),
    ],
    // Apps leave `Tools` off (the default), so an app's package graph holds StubKit alone: SwiftPM does not
    // resolve a dependency that only a disabled trait uses. This repository's own commands turn it on
    // (`swift build --traits Tools`, `swift test --traits Tools`); so does a package that wants the CLIs or plugins.
    traits: [
        .trait(
            name: "Tools",
            description: "The command-line tools (stubkit, stublint, stubbench), the local server, the importers, the OpenAPI checks and the GraphQL checks, with their dependencies (SwiftNIO, SwiftNIO SSL, Yams, OpenAPIKit, GraphQL, ArgumentParser). Apps and UI-test targets leave it off."
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        // Tools only: the library that apps link depends on Foundation alone.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // YAML (cassettes, OpenAPI specs): the document reader, the importers and the OpenAPI checks only.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // The OpenAPI checks and scaffold only (stublint, stubkit). Without the default ExternalLoading
        // trait: it pulls in Swift Concurrency machinery that slows the build, and specs are one file here.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0", traits: []),
        // The GraphQL checks only (stublint, stubkit): a real GraphQL parser, schema builder and validator.
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        // The local stub server only (StubKitServer): an HTTP/1.1 engine with keep-alive, pipelining and quiescing.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // TLS (BoringSSL) for the local server's wss:// relays to the real server, which URLSession cannot open here.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
    ],
    targets: [
        // MARK: Core library (linked by apps; Foundation only)
        .target(name: "StubKit"),

        // MARK: Test-runner library (linked by UI-test targets; Foundation and StubKit only)
        // Depends on StubKit, itself Foundation-only, so the STUB_… encoding, the flags' JSON and the
        // live journal's lines are written once and read by the same code on both sides.
        .target(name: "StubKitTesting", dependencies: ["StubKit"]),

        // MARK: Unit-test library (linked by unit and integration test targets; StubKit and the toolchain's test frameworks)
        // `@Test(.stubs("template"))` and `XCTestCase.useStubs(_:)`: each test gets its own engine and session.
        // Its own target so that StubKit and StubKitTesting never import Testing or XCTest.
        .target(name: "StubKitUnitTesting", dependencies: ["StubKit"]),

        // MARK: Command-line tools
        // The stand-in app: activates from its own launch arguments, then performs requests.
        .executableTarget(name: "stubdemo", dependencies: ["StubKit"], path: "Tools/stubdemo"),
        // The bundle linter and request explainer used in CI and editors.
        .executableTarget(
            name: "stublint",
            dependencies: ["StubKit", "StubKitOpenAPI", "StubKitGraphQL", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"]))],
            path: "Tools/stublint"
        ),
        // Benchmarks (run with -c release); CI runs it once in quick mode so it cannot rot.
        .executableTarget(
            name: "stubbench",
            dependencies: ["StubKit", "StubKitTesting", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"]))],
            path: "Tools/stubbench"
        ),

        // MARK: Reading documents (tools only; apps never link it)
        // JSON and YAML as the importers and the OpenAPI checks take them in, with one alias budget
        // that refuses a "billion laughs" document before it is expanded.
        .target(name: "StubKitDocuments", dependencies: ["StubKit", .product(name: "Yams", package: "Yams", condition: .when(traits: ["Tools"]))]),

        // MARK: Importing and exporting (tools only; apps never link these)
        // zlib, for gzip-declared bodies in HAR files and cassettes.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // Readers of HAR, WireMock, Mocktail and cassettes that write bundles through the bundle writer; the HAR exporter.
        .target(name: "StubKitImport", dependencies: ["StubKit", "StubKitDocuments", .target(name: "CZlib", condition: .when(traits: ["Tools"])), .product(name: "Yams", package: "Yams", condition: .when(traits: ["Tools"]))]),
        // MARK: Checking against an OpenAPI document (tools only; apps never link it)
        // Spec loading, operation matching, body validation against schemas, and the scaffold writer.
        .target(
            name: "StubKitOpenAPI",
            dependencies: [
                "StubKit",
                "StubKitDocuments",
                .product(name: "OpenAPIKit", package: "OpenAPIKit", condition: .when(traits: ["Tools"])),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit", condition: .when(traits: ["Tools"])),
                .product(name: "Yams", package: "Yams", condition: .when(traits: ["Tools"])),
            ]
        ),
        // MARK: Checking against a GraphQL schema (tools only; apps never link it)
        // Schema and operation documents loading, validation, response shapes, and the stub checks.
        .target(
            name: "StubKitGraphQL",
            dependencies: [
                "StubKit",
                "StubKitDocuments",
                .product(name: "GraphQL", package: "GraphQL", condition: .when(traits: ["Tools"])),
            ]
        ),
        // MARK: Checking the app's traffic from the test runner (tools only; UI-test targets and runners)
        // `ContractCheck` and its XCTest and Swift Testing assertions, over the checks of `stublint traffic`.
        // Its own target so that StubKitTesting stays Foundation and StubKit only.
        .target(name: "StubKitContract", dependencies: ["StubKit", "StubKitTesting", "StubKitOpenAPI"]),
        // MARK: Local stub server (tools and test runners only; apps never link it)
        // The same bundles served over HTTP to any process, on SwiftNIO.
        .target(
            name: "StubKitServer",
            dependencies: [
                "StubKit",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOExtras", package: "swift-nio-extras", condition: .when(traits: ["Tools"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Tools"])),
            ]
        ),
        // `stubkit import|export|migrate|serve|scaffold`: the command line over StubKitImport, StubKitServer, StubKitOpenAPI and StubKitGraphQL.
        .executableTarget(
            name: "stubkit",
            dependencies: ["StubKitImport", "StubKitServer", "StubKitOpenAPI", "StubKitGraphQL", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"]))],
            path: "Tools/stubkit"
        ),
        // A hello-world on the server's engine (SwiftNIO, same pipeline): the floor the local server's
        // benchmark compares `stubkit serve` with.
        .executableTarget(
            name: "nio-hello",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Tools"])),
            ],
            path: "Tools/nio-hello"
        ),
        // A WebSocket server on the same engine that pushes the benchmark's messages on its schedule:
        // the floor the WebSocket benchmark compares `stubkit serve` with.
        .executableTarget(
            name: "nio-ws",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: .when(traits: ["Tools"])),
            ],
            path: "Tools/nio-ws"
        ),

        // MARK: Plugins (need the `Tools` trait: without it stublint only says how to build the real one)
        // `swift package lint-stubs [folders…] [stublint options]`: the package's bundles, or the folders given.
        .plugin(
            name: "LintStubs",
            capability: .command(intent: .custom(verb: "lint-stubs", description: "Lint the package's stub bundles with stublint")),
            dependencies: ["stublint"],
            path: "Plugins/LintStubs"
        ),
        // `plugins: [.plugin(name: "StubLintPlugin", package: "StubKit")]`: lints the target's bundles on every build.
        .plugin(name: "StubLintPlugin", capability: .buildTool(), dependencies: ["stublint"], path: "Plugins/StubLintPlugin"),

        // MARK: Tests
        // Shared fixtures and helpers: loopback server, child-process runner, bundle builders.
        .target(name: "StubKitTestSupport", dependencies: ["StubKit", "CStubKitTestHooks"], path: "Tests/StubKitTestSupport"),
        // The test process's allocator set up before any test so that Foundation's Process.run() cannot crash it
        // on Linux (Tests/CStubKitTestHooks/ProcessSpawnGuard.c).
        .target(
            name: "CStubKitTestHooks", path: "Tests/CStubKitTestHooks",
            // The test executable exports its readdir, so that Foundation's calls reach it (Linux only).
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic-symbol=readdir"], .when(platforms: [.linux])), .linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        .testTarget(name: "StubKitTests", dependencies: ["StubKit", "StubKitTesting", "StubKitTestSupport"]),
        .testTarget(
            name: "StubKitImportTests",
            dependencies: ["StubKit", "StubKitImport", "StubKitTestSupport", .product(name: "Yams", package: "Yams", condition: .when(traits: ["Tools"]))]
        ),
        .testTarget(name: "StubKitOpenAPITests", dependencies: ["StubKit", "StubKitOpenAPI", "StubKitTestSupport"]),
        .testTarget(name: "StubKitContractTests", dependencies: ["StubKit", "StubKitTesting", "StubKitContract", "StubKitTestSupport"]),
        .testTarget(name: "StubKitGraphQLTests", dependencies: ["StubKit", "StubKitGraphQL", "StubKitTestSupport"]),
        .testTarget(name: "StubKitServerTests", dependencies: ["StubKit", "StubKitServer", "StubKitTestSupport"]),
        // The trait and the XCTest helper as a test target uses them, with its templates as resources (`Bundle.module`).
        .testTarget(name: "StubKitUnitTestingTests", dependencies: ["StubKit", "StubKitUnitTesting", "StubKitTestSupport"],
                    resources: [.copy("StubBundles")]),
    ]
)

for target in package.targets where target.type != .system && target.type != .plugin {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
