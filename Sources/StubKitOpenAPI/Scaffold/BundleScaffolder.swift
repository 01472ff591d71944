#if Tools
import Foundation
import StubKit
import StubKitDocuments

/// Writes a starting bundle from an OpenAPI document through StubKit's bundle writer: one rule per
/// operation and documented status, bodies from the examples.
///
/// The lowest 2xx status of an operation answers every request; each other status answers requests
/// that ask for it with `Prefer: code=404` (the header Prism uses), so no rule shadows another. A body
/// is written only when it validates against its documented schema, so the bundle is contract-clean
/// by construction; what cannot be written is reported, never guessed.
package struct BundleScaffolder: Sendable {
    package let spec: OpenAPISpec

    package init(spec: OpenAPISpec) {
        self.spec = spec
    }

    package struct Report: Sendable {
        package var bundle: URL
        package var rules: Int
        package var operations: Int
        /// Responses not written, with why: `GET /pets 200: no example and the schema gives none`.
        package var notes: [String]

        package var summary: String {
            var text = "wrote \(rules) rule\(rules == 1 ? "" : "s") for \(operations) operation\(operations == 1 ? "" : "s") to \(bundle.path)\n"
            for note in notes { text += "note: \(note)\n" }
            return text
        }
    }

    package struct ScaffoldError: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Writes the bundle at `bundle` (a new or empty folder, or a bundle when `replacing`).
    package func write(to bundle: URL, replacing: Bool = false) throws(ScaffoldError) -> Report {
        let fm = FileManager.default
        if !replacing, let entries = try? fm.contentsOfDirectory(atPath: bundle.path), !entries.isEmpty {
            throw ScaffoldError(description: "\(bundle.path) is not empty; name a new folder, or pass --force to replace a bundle there")
        }
        let writer: BundleWriter
        do { writer = try BundleWriter(folder: bundle, replacing: replacing) } catch { throw ScaffoldError(description: "\(error.path): \(error.reason)") }
        var report = Report(bundle: bundle.standardizedFileURL, rules: 0, operations: 0, notes: [])
        let examples = ExampleBuilder(spec: spec)
        let server = spec.servers[0]
        writer.beginBatch()
        for operation in Self.literalPathsFirst(spec.operations) {
            let numbered = operation.responses.compactMap { entry -> (Int, SourceValue.Entry)? in
                if let code = Int(entry.key), (100...599).contains(code) { return (code, entry) }
                if entry.key.count == 3, entry.key.uppercased().hasSuffix("XX"), let digit = Int(entry.key.prefix(1)), (1...5).contains(digit) { return (digit * 100, entry) }
                return nil
            }
            let main = numbered.first { (200...299).contains($0.0) }?.0 ?? numbered.first?.0
            var wrote = false
            for (status, entry) in numbered {
                let response = spec.resolved(entry.value)
                var headers: [String: String] = [:]
                var body = Data()
                var fileExtension = "json"
                if let content = response["content"]?.dictionaryValue, !content.isEmpty {
                    let chosen = content.first { MediaType.isJSON($0.key) } ?? content[0]
                    guard let (value, _) = examples.example(for: chosen.value) else {
                        report.notes.append("\(operation.label) \(entry.key): no example, and none can be made from the schema; not written")
                        continue
                    }
                    if MediaType.isJSON(chosen.key) {
                        if let schema = chosen.value["schema"] {
                            let violations = SchemaValidator(root: spec.root, dialect: spec.dialect).validate(value, against: schema)
                            if let first = violations.first(where: \.isViolation) {
                                report.notes.append("\(operation.label) \(entry.key): the example does not validate against its schema (\(first.description)); not written")
                                continue
                            }
                        }
                        body = Data(value.readableJSON().utf8)
                    } else if let text = value.stringValue {
                        body = Data(text.utf8)
                        fileExtension = chosen.key.lowercased().contains("xml") ? "xml" : "txt"
                    } else {
                        report.notes.append("\(operation.label) \(entry.key): the \(chosen.key) example is not text; not written")
                        continue
                    }
                    headers["Content-Type"] = chosen.key.contains("*") ? "application/octet-stream" : chosen.key
                }
                let pathText = "/" + (server.basePath + operation.segments.map { segment in
                    switch segment {
                    case .literal(let text), .mixed(let text): return text
                    case .parameter(let name): return "{\(name)}"
                    }
                }).joined(separator: "/")
                var request = BundleWriter.RequestConditions(method: operation.method, host: server.host,
                                                             path: pathText.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: ""))
                request.options.pathPattern = pathText
                request.options.name = "\(operation.operationID ?? operation.label) \(status)"
                if status != main { request.options.headers["Prefer"] = .equals("code=\(status)") }
                do {
                    try writer.append(request, BundleWriter.Response(status: status, headers: headers, body: .data(body), fileExtension: fileExtension))
                    wrote = true
                } catch {
                    report.notes.append("\(operation.label) \(entry.key): \(error.reason)")
                }
            }
            if wrote { report.operations += 1 } else if numbered.isEmpty {
                report.notes.append("\(operation.label): no numbered response (only 'default'); not written")
            }
        }
        do { try writer.endBatch() } catch { throw ScaffoldError(description: "\(error.path): \(error.reason)") }
        report.rules = writer.ruleCount
        return report
    }

    /// The operations in the order their rules must be written: where one path has a literal and
    /// another a parameter in the same place (`/pets/mine`, `/pets/{id}`), the literal first, or the
    /// `{id}` rule answers `/pets/mine` too and the bundle is not lint-clean (SK041). Otherwise the
    /// document's order.
    static func literalPathsFirst(_ operations: [SpecOperation]) -> [SpecOperation] {
        func rank(_ segment: SpecOperation.Segment) -> Int {
            switch segment {
            case .literal: return 0
            case .mixed: return 1
            case .parameter: return 2
            }
        }
        return operations.enumerated().sorted { a, b in
            let ka = a.element.segments.map(rank), kb = b.element.segments.map(rank)
            return ka == kb ? a.offset < b.offset : ka.lexicographicallyPrecedes(kb)
        }.map(\.element)
    }
}
#endif
