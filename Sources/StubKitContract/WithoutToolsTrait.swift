#if !Tools
// Built without the `Tools` trait, the module is empty (its OpenAPI reader was not resolved): say so at
// build time rather than with "cannot find 'ContractCheck' in scope" at every use.
#warning("StubKitContract needs the StubKit package's Tools trait: .package(url: …, from: …, traits: [\"Tools\"]) in the package of the test target that uses it")
#endif
