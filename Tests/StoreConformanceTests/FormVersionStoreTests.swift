import FormStore
import Testing

/// What ``FormVersionStore`` promises, checked on every store.
@Suite struct FormVersionStoreTests {
    @Test(arguments: StoreKind.allCases)
    func identicalUploadKeepsVersionAndChangedOneAddsOne(_ kind: StoreKind) async throws {
        try await kind.withFormVersionStore { store in
            let first = try await store.saveFormVersion(formID: "f", definition: "{\"v\":1}", title: "One", contentHash: "h1")
            #expect(first == SavedVersion(version: 1, createdForm: true, createdVersion: true))

            let same = try await store.saveFormVersion(formID: "f", definition: "{\"v\":1}", title: "One", contentHash: "h1")
            #expect(same == SavedVersion(version: 1, createdForm: false, createdVersion: false))

            let second = try await store.saveFormVersion(formID: "f", definition: "{\"v\":2}", title: "Two", contentHash: "h2")
            #expect(second == SavedVersion(version: 2, createdForm: false, createdVersion: true))

            let current = try #require(try await store.currentForm(id: "f"))
            #expect(current.version == 2 && current.definition == "{\"v\":2}" && current.title == "Two")
            let old = try #require(try await store.formVersion(id: "f", version: 1))
            #expect(old.definition == "{\"v\":1}" && old.currentVersion == 2 && old.formDeletedAt == nil)
            #expect(try await store.formVersion(id: "f", version: 3) == nil)
            #expect(try await store.formVersions(id: "f").map(\.version) == [1, 2])
            #expect(try await store.formVersions(id: "f").map(\.contentHash) == ["h1", "h2"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deleteHidesTheFormAndSavingAgainUndeletesWithANewVersion(_ kind: StoreKind) async throws {
        try await kind.withFormVersionStore { store in
            _ = try await store.saveFormVersion(formID: "f", definition: "{}", title: "F", contentHash: "h1")
            _ = try await store.saveFormVersion(formID: "g", definition: "{}", title: "G", contentHash: "g1")
            #expect(try await store.deleteForm(id: "f"))
            #expect(try await store.deleteForm(id: "f") == false)
            #expect(try await store.deleteForm(id: "unknown") == false)

            #expect(try await store.currentForm(id: "f") == nil)
            #expect(try await store.formExists(id: "f", includingDeleted: false) == false)
            #expect(try await store.formExists(id: "f", includingDeleted: true))
            #expect(try await store.formExists(id: "unknown", includingDeleted: true) == false)
            #expect(try await store.listForms().map(\.id) == ["g"])
            let kept = try #require(try await store.formVersion(id: "f", version: 1))
            #expect(kept.formDeletedAt != nil)

            let again = try await store.saveFormVersion(formID: "f", definition: "{}", title: "F", contentHash: "h1")
            #expect(again == SavedVersion(version: 2, createdForm: true, createdVersion: true))
            #expect(try await store.currentForm(id: "f")?.version == 2)
            #expect(try await store.listForms().map(\.id) == ["f", "g"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func createOnlyRefusesALiveFormButTakesADeletedOne(_ kind: StoreKind) async throws {
        try await kind.withFormVersionStore { store in
            let created = try await store.saveFormVersion(
                formID: "f", definition: "{}", title: "F", contentHash: "h1", createOnly: true)
            #expect(created == SavedVersion(version: 1, createdForm: true, createdVersion: true))
            await #expect(throws: StoreError.conflict("form f exists")) {
                try await store.saveFormVersion(formID: "f", definition: "{}", title: "F", contentHash: "h2", createOnly: true)
            }
            #expect(try await store.formVersions(id: "f").map(\.version) == [1])

            #expect(try await store.deleteForm(id: "f"))
            let revived = try await store.saveFormVersion(
                formID: "f", definition: "{}", title: "F", contentHash: "h1", createOnly: true)
            #expect(revived == SavedVersion(version: 2, createdForm: true, createdVersion: true))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aPreconditionSeesTheLiveVersionAndARefusalChangesNothing(_ kind: StoreKind) async throws {
        try await kind.withFormVersionStore { store in
            await #expect(throws: StoreError.preconditionFailed(currentVersion: nil)) {
                try await store.saveFormVersion(formID: "f", definition: "{}", title: "F", contentHash: "h1",
                                                createOnly: false, precondition: { $0 == 1 }, audit: nil)
            }
            #expect(try await store.formExists(id: "f", includingDeleted: true) == false)

            _ = try await store.saveFormVersion(formID: "f", definition: "{}", title: "F", contentHash: "h1",
                                                createOnly: false, precondition: { $0 == nil }, audit: nil)
            await #expect(throws: StoreError.preconditionFailed(currentVersion: 1)) {
                try await store.saveFormVersion(formID: "f", definition: "{}", title: "F", contentHash: "h2",
                                                createOnly: false, precondition: { $0 == 7 }, audit: nil)
            }
            #expect(try await store.currentForm(id: "f")?.contentHash == "h1")
            let saved = try await store.saveFormVersion(formID: "f", definition: "{}", title: "F", contentHash: "h2",
                                                        createOnly: false, precondition: { $0 == 1 }, audit: nil)
            #expect(saved.version == 2)

            await #expect(throws: StoreError.preconditionFailed(currentVersion: 2)) {
                try await store.deleteForm(id: "f", precondition: { $0 == 1 }, audit: nil)
            }
            #expect(try await store.currentForm(id: "f") != nil)
            #expect(try await store.deleteForm(id: "f", precondition: { $0 == 2 }, audit: nil))
            await #expect(throws: StoreError.preconditionFailed(currentVersion: nil)) {
                try await store.deleteForm(id: "f", precondition: { $0 == 2 }, audit: nil)
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func formsAreListedInBinaryOrderOfTheirIdsPageByPage(_ kind: StoreKind) async throws {
        try await kind.withFormVersionStore { store in
            // Upper case sorts before lower case, and "é" after "z", only in binary order.
            let ids = ["b", "a", "B", "é", "z", "a-1", "A"]
            for id in ids {
                _ = try await store.saveFormVersion(formID: id, definition: "{}", title: "Form \(id)", contentHash: "h")
            }
            let sorted = ids.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            #expect(try await store.listForms().map(\.id) == sorted)

            var paged: [String] = []
            var after: String?
            while true {
                let page = try await store.listForms(after: after, limit: 3)
                paged += page.map(\.id)
                guard page.count == 3, let last = page.last else { break }
                after = last.id
            }
            #expect(paged == sorted)
            let first = try #require(try await store.listForms(after: nil, limit: 1).first)
            #expect(first.title == "Form A" && first.version == 1 && first.submissionCount == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func versionsArePagedOldestFirst(_ kind: StoreKind) async throws {
        try await kind.withFormVersionStore { store in
            for index in 1...5 {
                _ = try await store.saveFormVersion(formID: "f", definition: "{}", title: "V\(index)", contentHash: "h\(index)")
            }
            #expect(try await store.formVersions(id: "f", after: nil, limit: 2).map(\.version) == [1, 2])
            #expect(try await store.formVersions(id: "f", after: 2, limit: 2).map(\.title) == ["V3", "V4"])
            #expect(try await store.formVersions(id: "f", after: 4, limit: 2).map(\.version) == [5])
            #expect(try await store.formVersions(id: "unknown").isEmpty)
        }
    }
}
