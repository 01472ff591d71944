#if Tools
import ArgumentParser
import Foundation
import StubKitGraphQL

extension Scaffold {
    /// `--graphql-schema … --operations …`: a rule per operation, answered by an example of its shape.
    func scaffoldGraphQL() throws {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let schemaURLs = graphQLSchemas.map { URL(fileURLWithPath: $0) }
        let schema: GraphQLSchemaDocument
        do { schema = try GraphQLSchemaDocument.load(schemaURLs, displayBase: cwd) } catch {
            printError("the GraphQL schema does not load; nothing written\n" + error.description)
            throw ExitCode.badInput
        }
        let operationsURL = URL(fileURLWithPath: operations ?? ".", isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: operationsURL.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            printError("--operations \(operations ?? ""): no such folder; name the folder of the app's .graphql files")
            throw ExitCode.badInput
        }
        let documents = GraphQLOperationDocuments.load(folder: operationsURL, schema: schema, displayBase: cwd)
        let bundle = try checkedBundle(inputs: schemaURLs + [operationsURL])
        var scaffolder = GraphQLBundleScaffolder(schema: schema, documents: documents)
        scaffolder.host = host
        scaffolder.path = path
        let report: GraphQLBundleScaffolder.Report
        do { report = try scaffolder.write(to: bundle, replacing: force) } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        print(report.summary, terminator: "")
        if !report.problems.isEmpty { throw ExitCode.somethingReported }
    }
}
#endif
