#if Tools
import Foundation
import GraphQL
import StubKit

/// A GraphQL schema read from SDL: one file, or several (`.graphqls`, `.graphql`) read as one, as
/// servers and Apollo's tooling split a schema across files.
///
/// Built with GraphQLSwift (`parse`, then `buildASTSchema`, which checks the SDL). Positions of types
/// and fields map back to their file, line and column for diagnostics' related location.
package struct GraphQLSchemaDocument: @unchecked Sendable {
    // @unchecked: GraphQLSchema and its types are immutable once built (GraphQLSwift marks them so).
    package let schema: GraphQLSchema
    package let text: GraphQLSourceText
    /// The fields of each object and interface type, read once (GraphQLSwift builds them on each call).
    private let fieldsByType: [String: GraphQLFieldMap]
    /// The file, or the first file, as diagnostics name it.
    package var file: String { text.parts.first?.file ?? "" }

    /// Loads a schema from SDL files (a folder stands for the `.graphqls`/`.graphql` files under it).
    /// - Throws: ``GraphQLLoadError`` with each problem's file, line and column.
    package static func load(_ urls: [URL], displayBase: URL? = nil) throws(GraphQLLoadError) -> GraphQLSchemaDocument {
        var files: [URL] = []
        for url in urls {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                files += GraphQLOperationDocuments.graphQLFiles(in: url, extensions: ["graphqls", "graphql"])
            } else {
                files.append(url)
            }
        }
        guard !files.isEmpty else {
            throw GraphQLLoadError([GraphQLProblem(file: urls.first.map { $0.displayPath(relativeTo: displayBase) } ?? "", position: nil, message: "no schema file (.graphqls or .graphql)")])
        }
        var text = GraphQLSourceText()
        var problems: [GraphQLProblem] = []
        for url in files {
            let display = url.displayPath(relativeTo: displayBase)
            switch GraphQLFileReader.read(url, display: display) {
            case .success(let contents):
                // Each file alone first, so that a syntax error is reported in every file that has one.
                var single = GraphQLSourceText()
                single.append(contents, file: display, url: url)
                if case .failure(let problem) = GraphQLFileReader.parse(single, name: display) { problems.append(problem) }
                text.append(contents, file: display, url: url)
            case .failure(let problem):
                problems.append(problem)
            }
        }
        guard problems.isEmpty else { throw GraphQLLoadError(problems) }
        let document: Document
        switch GraphQLFileReader.parse(text, name: "schema") {
        case .success(let parsed): document = parsed
        case .failure(let problem): throw GraphQLLoadError([problem])
        }
        do {
            let schema = try buildASTSchema(documentAST: document)
            var fieldsByType: [String: GraphQLFieldMap] = [:]
            for (name, type) in schema.typeMap {
                if let object = type as? GraphQLObjectType { fieldsByType[name] = try? object.fields() }
                if let interface = type as? GraphQLInterfaceType { fieldsByType[name] = try? interface.fields() }
            }
            return GraphQLSchemaDocument(schema: schema, text: text, fieldsByType: fieldsByType)
        } catch let error as GraphQLError {
            throw GraphQLLoadError(Self.problems(error, in: text))
        } catch {
            throw GraphQLLoadError([GraphQLProblem(file: text.parts[0].file, position: nil, message: "\(error)")])
        }
    }

    /// `assertValidSDL` joins every SDL problem into one error, one message per paragraph, with every
    /// node: one problem per node where the counts agree, else one problem at the first node.
    private static func problems(_ error: GraphQLError, in text: GraphQLSourceText) -> [GraphQLProblem] {
        let messages = error.message.components(separatedBy: "\n\n")
        if messages.count > 1, messages.count == error.positions.count {
            return zip(messages, error.positions).map { message, offset in
                let location = text.location(of: offset)
                return GraphQLProblem(file: location?.file ?? text.parts[0].file, position: location?.position, message: message)
            }
        }
        var problem = GraphQLFileReader.problem(error, in: text)
        // GraphQLSwift reports a type that is used but never defined without a place: find its first use.
        if error.positions.isEmpty, error.message.hasPrefix("Unknown type \""),
           let name = error.message.split(separator: "\"").dropFirst().first, let offset = firstUse(of: String(name), in: text.text),
           let location = text.location(of: offset) {
            problem.file = location.file
            problem.position = location.position
        }
        return [problem]
    }

    /// The UTF-8 offset of the first use of a type name as a whole word, past the keyword that defines it.
    private static func firstUse(of name: String, in text: String) -> Int? {
        let bytes = Array(text.utf8), target = Array(name.utf8)
        func isNameByte(_ b: UInt8) -> Bool { b == UInt8(ascii: "_") || (b >= 48 && b <= 57) || (b | 0x20 >= 97 && b | 0x20 <= 122) }
        var i = 0
        while i + target.count <= bytes.count {
            if bytes[i] == UInt8(ascii: "#") {
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n") { i += 1 }
                continue
            }
            if Array(bytes[i..<i + target.count]) == target, i == 0 || !isNameByte(bytes[i - 1]),
               i + target.count == bytes.count || !isNameByte(bytes[i + target.count]) {
                let before = String(decoding: bytes[max(0, i - 12)..<i], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                let defining = ["type", "interface", "union", "enum", "scalar", "input"].contains { before.hasSuffix($0) }
                if !defining { return i }
            }
            i += 1
        }
        return nil
    }

    // MARK: Looking things up

    /// Where a named type is defined.
    package func location(ofType name: String) -> (file: String, position: SourcePosition)? {
        guard let type = schema.getType(name: name) else { return nil }
        let node: (any Node)?
        switch type {
        case let object as GraphQLObjectType: node = object.astNode
        case let interface as GraphQLInterfaceType: node = interface.astNode
        case let scalar as GraphQLScalarType: node = scalar.astNode
        case let enumeration as GraphQLEnumType: node = enumeration.astNode
        case let input as GraphQLInputObjectType: node = input.astNode
        default: node = nil
        }
        return GraphQLFileReader.location(of: node, in: text)
    }

    /// Where a field of an object or interface type is defined.
    package func location(ofField field: String, in typeName: String) -> (file: String, position: SourcePosition)? {
        guard let fields = fields(of: typeName), let definition = fields[field] else { return location(ofType: typeName) }
        return GraphQLFileReader.location(of: definition.astNode, in: text) ?? location(ofType: typeName)
    }

    /// The fields of an object or interface type.
    package func fields(of typeName: String) -> GraphQLFieldMap? {
        fieldsByType[typeName]
    }

    /// The root type of an operation type.
    package func rootType(_ operation: GraphQLOperationType) -> GraphQLObjectType? {
        switch operation {
        case .query: return schema.queryType
        case .mutation: return schema.mutationType
        case .subscription: return schema.subscriptionType
        }
    }

    /// The object types a value of this named type may have: itself for an object type, the possible
    /// types of an interface or union (in the schema's order), none otherwise.
    package func possibleTypes(of typeName: String) -> [String] {
        switch schema.getType(name: typeName) {
        case let object as GraphQLObjectType: return [object.name]
        case let abstract as any GraphQLAbstractType: return schema.getPossibleTypes(abstractType: abstract).map(\.name)
        default: return []
        }
    }
}
#endif
