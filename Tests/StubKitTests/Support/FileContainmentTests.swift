import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// "Is this path inside that folder", as a bundle's response files, a WireMock `__files` folder and an
/// import destination ask it: by where the file system puts both sides, by whole path components.
@Suite struct FileContainmentTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        /// Relative to the scratch folder, which holds `bundle/` (with `a.json`), `bundle-other/`,
        /// `secret.json`, `elsewhere/deep/` and the links below.
        let path: String
        let folder: String
        let isInside: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a file inside", path: "bundle/a.json", folder: "bundle", isInside: true),
        Case(name: "the folder itself", path: "bundle", folder: "bundle", isInside: true),
        Case(name: "the folder written with a trailing slash and '.'", path: "bundle/./", folder: "bundle/", isInside: true),
        Case(name: "a sibling whose name starts with the folder's", path: "bundle-other/x.json", folder: "bundle", isInside: false),
        Case(name: "a '..' escape", path: "bundle/../secret.json", folder: "bundle", isInside: false),
        Case(name: "a symbolic link out of the folder", path: "bundle/link.json", folder: "bundle", isInside: false),
        Case(name: "a symbolic link to a file inside", path: "bundle/inner-link.json", folder: "bundle", isInside: true),
        Case(name: "'..' after a link leaves from the link's target", path: "bundle/out/..", folder: "bundle", isInside: false),
        Case(name: "the folder named through a link", path: "bundle/a.json", folder: "bundle-link", isInside: true),
        Case(name: "a file not yet there, inside", path: "bundle/new/file.json", folder: "bundle", isInside: true),
        Case(name: "a file not yet there, escaping with '..'", path: "bundle/new/../../secret2.json", folder: "bundle", isInside: false),
        Case(name: "the parent of the folder", path: ".", folder: "bundle", isInside: false),
    ]

    @Test("whether a path lies inside a folder", arguments: cases)
    func containment(_ example: Case) throws {
        let scratch = try TemporaryFolder()
        let fm = FileManager.default
        let root = scratch.url
        try scratch.bundle("bundle", ["a.json": "{}"])
        try scratch.bundle("bundle-other", ["x.json": "{}"])
        try scratch.bundle("elsewhere/deep", [:])
        try scratch.file("secret.json", data: Data("{}".utf8))
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("bundle/link.json").path, withDestinationPath: root.appendingPathComponent("secret.json").path)
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("bundle/inner-link.json").path, withDestinationPath: "a.json")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("bundle/out").path, withDestinationPath: root.appendingPathComponent("elsewhere/deep").path)
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("bundle-link").path, withDestinationPath: root.appendingPathComponent("bundle").path)

        let path = URL(fileURLWithPath: root.path + "/" + example.path)
        let folder = URL(fileURLWithPath: root.path + "/" + example.folder)
        #expect(FileContainment.isInside(path, folder: folder) == example.isInside, "\(path.path) in \(folder.path)")
    }
}
