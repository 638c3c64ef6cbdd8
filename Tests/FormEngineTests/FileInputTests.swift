import Testing
@testable import FormEngine

@Suite struct FileInputTests {
    /// A form `claims` with file input `f`: `{"file": {"id": "f", "title": "F", <props>}}`.
    private func form(_ props: String = "") throws -> FormDefinition {
        let extra = props.isEmpty ? "" : ", " + props
        return try Fixtures.definition(#"{"id": "claims", "title": "T", "components": [{"file": {"id": "f", "title": "F"\#(extra)}}]}"#)
    }

    private func upload(_ id: String, field: String = "f", form: String = "claims", type: String = "image/png", size: Int = 2048,
                        filename: String? = "photo.png", complete: Bool = true, bound: Bool = false) -> UploadedFile {
        UploadedFile(id: id, formID: form, field: field, contentType: type, size: size, sha256: String(repeating: "ab", count: 32),
                     filename: filename, isComplete: complete, isBound: bound)
    }

    private func validate(_ definition: FormDefinition, _ values: String, _ files: [UploadedFile] = []) throws -> ValidationResult {
        let byID = Dictionary(files.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return definition.validate(try Fixtures.submission(#"{"values": \#(values)}"#), options: ValidationOptions(files: byID))
    }

    private func codes(_ definition: FormDefinition, _ value: String, _ files: [UploadedFile] = []) throws -> [FieldError.Code] {
        try validate(definition, #"{"f": \#(value)}"#, files).errors.map(\.code)
    }

    private func stored(_ file: UploadedFile) -> JSONValue {
        ["id": .string(file.id), "contentType": .string(file.contentType), "size": .number(Double(file.size)),
         "sha256": .string(file.sha256), "filename": file.filename.map(JSONValue.string) ?? .null]
    }

    private func problems(_ props: String, type: String = "file") -> [String] {
        let json = #"{"title": "T", "components": [{"\#(type)": {"id": "f"\#(props.isEmpty ? "" : ", " + props)}}]}"#
        return Fixtures.problems(json).map { "\($0.pointer) \($0.code)" }
    }

    // MARK: Definitions

    @Test func badLimitsAreDefinitionProblemsWithPointers() {
        #expect(problems(#""accept": "image/*""#) == ["/components/0/file/accept invalidType"])
        #expect(problems(#""accept": []"#) == ["/components/0/file/accept badValue"])
        #expect(problems(#""accept": ["image/*", 3, "image", "image/png; q=1", "*/png", "ima ge/png", "image/*/x", "/png", "application/pdf"]"#) == [
            "/components/0/file/accept/1 invalidType", "/components/0/file/accept/2 badValue", "/components/0/file/accept/3 badValue",
            "/components/0/file/accept/4 badValue", "/components/0/file/accept/5 badValue", "/components/0/file/accept/6 badValue",
            "/components/0/file/accept/7 badValue",
        ])
        #expect(problems(#""maxSize": 0"#) == ["/components/0/file/maxSize badValue"])
        #expect(problems(#""maxSize": -5"#) == ["/components/0/file/maxSize badValue"])
        #expect(problems(#""maxSize": 1.5"#) == ["/components/0/file/maxSize badValue"])
        #expect(problems(#""maxSize": "10MB""#) == ["/components/0/file/maxSize invalidType"])
        #expect(problems(#""maxFiles": 0"#) == ["/components/0/file/maxFiles badValue"])
        #expect(problems(#""maxFiles": 101"#) == ["/components/0/file/maxFiles badValue"])
        #expect(problems(#""maxFiles": 2.5"#) == ["/components/0/file/maxFiles badValue"])
        #expect(problems(#""maxSize": 1, "maxFiles": 100, "accept": ["*/*", "Image/PNG", "application/vnd.ms-excel", "text/x-c++"]"#).isEmpty)
    }

    @Test func textAndNumberRulesDoNotApplyToFiles() {
        #expect(problems(#""regex": "a", "minLength": 1, "maxLength": 2, "minValue": 1, "maxValue": 2, "options": [], "multiple": true"#) == [
            "/components/0/file/regex notApplicable", "/components/0/file/minLength notApplicable", "/components/0/file/maxLength notApplicable",
            "/components/0/file/minValue notApplicable", "/components/0/file/maxValue notApplicable",
            "/components/0/file/options notApplicable", "/components/0/file/multiple notApplicable",
        ])
        #expect(problems(#""required": true, "description": "D", "placeholder": "P", "messages": {"fileType": "Photos only."}"#).isEmpty)
    }

    @Test func fileLimitsApplyOnlyToFileInputsFromNowOn() throws {
        #expect(problems(#""accept": ["image/*"], "maxSize": 10, "maxFiles": 2"#, type: "text") == [
            "/components/0/text/accept notApplicable", "/components/0/text/maxSize notApplicable", "/components/0/text/maxFiles notApplicable",
        ])
        let group = #"{"title": "T", "components": [{"group": {"id": "g", "maxFiles": 2, "components": [{"section": {"accept": [], "components": []}}]}}]}"#
        #expect(Fixtures.problems(group).map { "\($0.pointer) \($0.code)" } == [
            "/components/0/group/maxFiles notApplicable", "/components/0/group/components/0/section/accept notApplicable",
        ])
        // A definition stored before file inputs existed may carry these names as extras: still read.
        let stored = try FormDefinition(json: Array(group.utf8), reading: .stored)
        #expect(!stored.hasFileInputs)
    }

    /// A file input's value may be an array, one JSON level more: fifteen nested repeats fit a text
    /// input into a submission's 32 levels (HostileInputTests), not a file input.
    @Test func aFileInputsArrayCountsTowardsNesting() {
        var inner = #"{"file": {"id": "f"}}"#
        for level in 0..<15 { inner = #"{"group": {"id": "g\#(level)", "repeat": {"max": 2}, "components": [\#(inner)]}}"# }
        #expect(Fixtures.problems(#"{"title": "F", "components": [\#(inner)]}"#).map { "\($0.pointer) \($0.code)" } == ["/components tooLarge"])
    }

    @Test func normalizedDefinitionWritesTheLimitsOut() throws {
        let definition = try Fixtures.definition(#"""
        {"title": "T", "components": [
          {"file": {"id": "plain"}},
          {"file": {"id": "docs", "accept": ["Application/PDF"], "maxSize": 2e6, "maxFiles": 3}}
        ]}
        """#)
        let components = definition.normalizedJSON()["components"]?.arrayValue ?? []
        #expect(components.map { $0.objectValue?.keys ?? [] } == [["file"], ["file"]])
        #expect(components.first?["file"] == ["id": "plain", "maxSize": 10_485_760, "maxFiles": 1])
        #expect(components.last?["file"] == ["id": "docs", "accept": ["Application/PDF"], "maxSize": 2_000_000, "maxFiles": 3])
        // Read back as stored, the same rules come out.
        let again = try FormDefinition(json: definition.normalizedJSON(), reading: .stored)
        #expect(again.fileInput(at: "plain") == definition.fileInput(at: "plain"))
        #expect(again.fileInput(at: "docs") == FileInputRules(path: "docs", accept: ["application/pdf"], maxSize: 2_000_000, maxFiles: 3))
    }

    @Test func mediaTypesMatchWithoutCaseOrParameters() {
        let images = FileInputRules(path: "f", accept: ["image/*", "application/pdf"], maxSize: 1, maxFiles: 1)
        for type in ["image/png", "IMAGE/JPEG", "image/svg+xml; charset=utf-8", " image/gif ", "application/pdf", "Application/PDF;x=1"] {
            #expect(images.accepts(mediaType: type), "\(type)")
        }
        for type in ["imagex/png", "application/pdfx", "text/plain", "image", "image/", "/png", "", "application/pdf/x"] {
            #expect(!images.accepts(mediaType: type), "\(type)")
        }
        let any = FileInputRules(path: "f", accept: ["*/*"], maxSize: 1, maxFiles: 1)
        #expect(any.accepts(mediaType: "video/mp4") && !any.accepts(mediaType: "nonsense"))
        #expect(FileInputRules(path: "f", accept: nil, maxSize: 1, maxFiles: 1).accepts(mediaType: "nonsense"))
    }

    @Test func fileInputsAreFoundByKeyPathWhateverTheIndex() throws {
        let definition = try Fixtures.definition(#"""
        {"title": "T", "components": [
          {"text": {"id": "name"}},
          {"section": {"components": [{"file": {"id": "photo", "accept": ["image/*"]}}]}},
          {"group": {"id": "addresses", "repeat": {"min": 0, "max": 5}, "components": [
            {"group": {"id": "proof", "components": [{"file": {"title": "Scan", "maxFiles": 2}}]}}
          ]}}
        ]}
        """#)
        #expect(definition.hasFileInputs)
        #expect(definition.fileInput(at: "photo") == FileInputRules(path: "photo", accept: ["image/*"], maxSize: 10_485_760, maxFiles: 1))
        let scan = FileInputRules(path: "addresses.proof.file-scan", accept: nil, maxSize: 10_485_760, maxFiles: 2)
        for path in ["addresses.proof.file-scan", "addresses[2].proof.file-scan", "addresses[].proof.file-scan", "addresses[0].proof[0].file-scan"] {
            #expect(definition.fileInput(at: path) == scan, "\(path)")
        }
        for path in ["name", "nope", "addresses", "addresses[x].proof.file-scan", "addresses[2]proof.file-scan", "addresses[2.proof.file-scan",
                     "addresses]2[.proof.file-scan", "Photo"] {
            #expect(definition.fileInput(at: path) == nil, "\(path)")
        }
        #expect(try !Fixtures.definition(#"{"title": "T", "components": [{"text": {"id": "name"}}]}"#).hasFileInputs)
    }

    // MARK: Validation

    @Test func emptyAnswersAreNoFileAndRequiredRefusesThem() throws {
        let optional = try form(#""maxFiles": 2"#)
        for value in ["null", #""""#, "[]"] {
            let result = try validate(optional, #"{"f": \#(value)}"#)
            #expect(result.isValid && result.values == [:] && result.fileIDs.isEmpty, "\(value)")
            #expect(try codes(form(#""required": true, "maxFiles": 2"#), value) == [.required], "\(value)")
        }
        #expect(try validate(form(#""required": true"#), "{}").errors.map(\.code) == [.required])
        // [] is no answer for a file input only: a text input still calls it a wrong type.
        #expect(try Fixtures.codes(Fixtures.single("text"), "[]") == [.type])
    }

    @Test func oneFileIsStoredAsItsFacts() throws {
        let photo = upload("upl_1")
        let result = try validate(form(#""accept": ["image/*"]"#), #"{"f": "upl_1"}"#, [photo, upload("upl_other")])
        #expect(result.isValid, "\(result.errors)")
        #expect(result.values == ["f": stored(photo)])
        #expect(result.values["f"]?["sha256"] == .string(String(repeating: "ab", count: 32)))
        #expect(result.fileIDs == ["upl_1"])
        // An array of one id is one file too.
        #expect(try validate(form(), #"{"f": ["upl_1"]}"#, [photo]).values == ["f": stored(photo)])
        // Without a filename, the stored value says null.
        let nameless = upload("upl_2", filename: nil)
        let values = try validate(form(), #"{"f": "upl_2"}"#, [nameless]).values
        #expect(values["f"]?["filename"] == .null)
        #expect(values["f"]?.objectValue?.keys == ["id", "contentType", "size", "sha256", "filename"])
    }

    @Test func severalFilesAreAlwaysAnArray() throws {
        let definition = try form(#""maxFiles": 3"#)
        let files = [upload("upl_a"), upload("upl_b", type: "application/pdf", size: 7, filename: "b.pdf")]
        let two = try validate(definition, #"{"f": ["upl_a", "upl_b"]}"#, files)
        #expect(two.isValid, "\(two.errors)")
        #expect(two.values == ["f": [stored(files[0]), stored(files[1])]])
        #expect(two.fileIDs == ["upl_a", "upl_b"])
        #expect(try validate(definition, #"{"f": "upl_b"}"#, files).values == ["f": [stored(files[1])]])
        #expect(try codes(definition, #"["upl_a", "upl_b", "upl_c", "upl_d"]"#, files) == [.maxFiles])
        #expect(try codes(form(), #"["upl_a", "upl_b"]"#, files) == [.maxFiles])
    }

    @Test func valuesOfOtherShapesAreTheWrongType() throws {
        let definition = try form(#""maxFiles": 2"#)
        for value in ["3", "true", #"{"id": "upl_a"}"#, #"["upl_a", 3]"#, "[null]", #"[["upl_a"]]"#] {
            #expect(try codes(definition, value, [upload("upl_a")]) == [.type], "\(value)")
        }
    }

    @Test func unusableUploadsAreRefusedWithCodeFile() throws {
        let definition = try form()
        let cases: [(UploadedFile, String)] = [
            (upload("upl_x", complete: false), "not finished"),
            (upload("upl_x", bound: true), "another submission"),
            (upload("upl_x", form: "other"), "another form"),
            (upload("upl_x", field: "g"), "another field"),
            (upload("upl_x", field: "f[0]"), "another field"),
        ]
        for (file, words) in cases {
            let errors = try validate(definition, #"{"f": "upl_x"}"#, [file]).errors
            #expect(errors.map(\.code) == [.file], "\(words)")
            #expect(errors.first?.message.contains(words) == true, "\(errors)")
        }
        let unknown = try validate(definition, #"{"f": "upl_x"}"#, [upload("upl_y")])
        #expect(unknown.errors.map(\.code) == [.file] && unknown.values == [:] && unknown.fileIDs.isEmpty)
        // The same upload twice in one input.
        #expect(try codes(form(#""maxFiles": 2"#), #"["upl_x", "upl_x"]"#, [upload("upl_x")]) == [.file])
        // A form without an id has no uploads.
        let anonymous = try Fixtures.definition(#"{"title": "T", "components": [{"file": {"id": "f"}}]}"#)
        #expect(try validate(anonymous, #"{"f": "upl_x"}"#, [upload("upl_x")]).errors.map(\.code) == [.file])
    }

    @Test func typeAndSizeAreCheckedAgainstTheInputsLimits() throws {
        let definition = try form(#""accept": ["image/*", "application/pdf"], "maxSize": 1048576"#)
        #expect(try codes(definition, #""upl_x""#, [upload("upl_x", type: "text/plain")]) == [.fileType])
        #expect(try codes(definition, #""upl_x""#, [upload("upl_x", type: "Application/Pdf; version=2")]).isEmpty)
        #expect(try codes(definition, #""upl_x""#, [upload("upl_x", size: 1_048_576)]).isEmpty)
        let tooLarge = try validate(definition, #"{"f": "upl_x"}"#, [upload("upl_x", size: 1_048_577)])
        #expect(tooLarge.errors.map(\.code) == [.maxSize])
        #expect(tooLarge.errors.first?.message.contains("1 MB") == true, "\(tooLarge.errors)")
        // The default limit is 10 MiB.
        #expect(try codes(form(), #""upl_x""#, [upload("upl_x", size: 10_485_761)]) == [.maxSize])
        #expect(try codes(form(), #""upl_x""#, [upload("upl_x", size: 10_485_760, filename: nil)]).isEmpty)
        // Any file fails its input as a whole: one bad file keeps the good one out too.
        let several = try validate(form(#""maxFiles": 2, "accept": ["image/png"]"#), #"{"f": ["upl_a", "upl_b"]}"#,
                                   [upload("upl_a"), upload("upl_b", type: "image/gif")])
        #expect(several.errors.map(\.code) == [.fileType] && several.values == [:] && several.fileIDs.isEmpty)
    }

    @Test func messagesReplaceTheDefaultOnes() throws {
        let definition = try form(#""required": true, "accept": ["image/*"], "messages": {"fileType": "Photos only.", "file": "Upload it again.", "maxSize": "Too big.", "maxFiles": "One."}"#)
        let cases: [(String, UploadedFile?, String)] = [
            (#""upl_x""#, upload("upl_x", type: "video/mp4"), "Photos only."),
            (#""upl_x""#, nil, "Upload it again."),
            (#""upl_x""#, upload("upl_x", size: 1 << 30), "Too big."),
            (#"["upl_x", "upl_y"]"#, nil, "One."),
        ]
        for (value, file, message) in cases {
            let errors = try validate(definition, #"{"f": \#(value)}"#, file.map { [$0] } ?? []).errors
            #expect(errors.map(\.message) == [message])
        }
    }

    @Test func sizesAreWrittenForPeople() {
        #expect(ValidationRun.sizeText(1) == "1 byte")
        #expect(ValidationRun.sizeText(1023) == "1023 bytes")
        #expect(ValidationRun.sizeText(1024) == "1 KB")
        #expect(ValidationRun.sizeText(1535) == "1.4 KB")
        #expect(ValidationRun.sizeText(10_485_760) == "10 MB")
        #expect(ValidationRun.sizeText(5_000_000) == "4.7 MB")
        #expect(ValidationRun.sizeText(3 << 30 | 1 << 29) == "3.5 GB")
    }

    @Test func aHiddenFileInputIsNeitherCheckedNorKept() throws {
        let definition = try Fixtures.definition(#"""
        {"id": "claims", "title": "T", "components": [
          {"switch": {"id": "damaged"}},
          {"file": {"id": "f", "required": true, "visibleWhen": {"field": "damaged", "equals": true}}}
        ]}
        """#)
        let hidden = try validate(definition, #"{"damaged": false, "f": ["upl_x", 3]}"#)
        #expect(hidden.isValid && hidden.values == ["damaged": false] && hidden.fileIDs.isEmpty)
        let shown = try validate(definition, #"{"damaged": true, "f": "upl_x"}"#, [upload("upl_x")])
        #expect(shown.isValid && shown.values == ["damaged": true, "f": stored(upload("upl_x"))] && shown.fileIDs == ["upl_x"])
        #expect(try validate(definition, #"{"damaged": true}"#).errors.map(\.code) == [.required])
    }

    @Test func inRepeatsAnUploadBelongsToTheInputNotTheItem() throws {
        let definition = try Fixtures.definition(#"""
        {"id": "claims", "title": "T", "components": [
          {"group": {"id": "addresses", "repeat": {"min": 0, "max": 5}, "components": [
            {"text": {"id": "street"}},
            {"file": {"id": "photo", "required": true}}
          ]}}
        ]}
        """#)
        let first = upload("upl_1", field: "addresses.photo")
        let second = upload("upl_2", field: "addresses.photo", filename: "two.png")
        let result = try validate(definition, #"{"addresses": [{"street": "A", "photo": "upl_1"}, {"street": "B", "photo": "upl_2"}]}"#, [first, second])
        #expect(result.isValid, "\(result.errors)")
        #expect(result.values == ["addresses": [["street": "A", "photo": stored(first)], ["street": "B", "photo": stored(second)]]])
        #expect(result.fileIDs == ["upl_1", "upl_2"])
        // Errors name the item; an upload made for an indexed path is not this input's.
        let indexed = upload("upl_3", field: "addresses[1].photo")
        let wrong = try validate(definition, #"{"addresses": [{"photo": "upl_1"}, {"photo": "upl_3"}]}"#, [first, indexed])
        #expect(wrong.errors.map { "\($0.field) \($0.code)" } == ["addresses[1].photo file"])
        // One upload in two items is one file in two places.
        let twice = try validate(definition, #"{"addresses": [{"photo": "upl_1"}, {"street": "B", "photo": "upl_1"}]}"#, [first])
        #expect(twice.errors.map { "\($0.field) \($0.code)" } == ["addresses[1].photo file"])
        #expect(twice.fileIDs == ["upl_1"])
    }

    @Test func fileIDsListWhatTheSubmissionNamesForFileInputs() throws {
        let definition = try Fixtures.definition(#"""
        {"id": "claims", "title": "T", "components": [
          {"text": {"id": "name"}},
          {"switch": {"id": "more"}},
          {"section": {"components": [{"file": {"id": "photo", "visibleWhen": {"field": "more", "equals": true}}}]}},
          {"group": {"id": "addresses", "repeat": {"min": 0, "max": 5}, "components": [
            {"group": {"id": "proof", "components": [{"file": {"id": "scan", "maxFiles": 5}}]}}
          ]}}
        ]}
        """#)
        let submission = try Fixtures.submission(#"""
        {"values": {"name": "upl_name", "photo": "upl_p",
          "addresses": [{"proof": {"scan": ["upl_a", 3, "upl_b", ""]}}, null, {"proof": {"scan": "upl_a"}}, {"proof": {"scan": {"x": "upl_z"}}}, {"proof": "upl_y"}],
          "stray": "upl_stray"}}
        """#)
        #expect(definition.fileIDs(in: submission) == ["upl_p", "upl_a", "upl_b"])
        #expect(try definition.fileIDs(in: Fixtures.submission(#"{"values": {"addresses": {"proof": {"scan": "upl_q"}}}}"#)).isEmpty)
        let plain = try Fixtures.definition(#"{"title": "T", "components": [{"text": {"id": "photo"}}]}"#)
        #expect(plain.fileIDs(in: try Fixtures.submission(#"{"values": {"photo": "upl_p"}}"#)).isEmpty)
    }

    // MARK: Formworks profile

    @Test func theProfileLeavesFileInputsOut() throws {
        let definition = try Fixtures.definition(#"""
        {"id": "claims", "title": "T", "components": [
          {"text": {"id": "name"}},
          {"file": {"id": "photo"}},
          {"group": {"id": "kids", "repeat": {"min": 2, "max": 3}, "components": [{"file": {"id": "scan", "required": true, "visibleWhen": {"field": "name", "notEmpty": true}}}]}},
          {"group": {"id": "pets", "repeat": {"min": 0, "max": 3}, "components": [{"file": {"id": "scan", "required": true}}, {"text": {"id": "kind"}}]}}
        ]}
        """#)
        #expect(definition.formworksProfileRefusal == nil)
        let ids = (definition.formworksProfile()["components"]?.arrayValue ?? []).map { $0.objectValue?.values.first?["id"] }
        #expect(ids == ["name", "pets[0].kind"])
    }

    @Test func aRequiredFileInputRefusesTheProfile() throws {
        #expect(try form(#""required": true"#).formworksProfileRefusal == .requiredFileInput(path: "f"))
        let nested = try Fixtures.definition(#"""
        {"title": "T", "components": [
          {"file": {"id": "optional"}},
          {"section": {"components": [{"group": {"id": "kids", "repeat": {"min": 1, "max": 3}, "components": [
            {"group": {"id": "proof", "components": [{"file": {"id": "scan", "required": true}}]}}
          ]}}]}}
        ]}
        """#)
        #expect(nested.formworksProfileRefusal == .requiredFileInput(path: "kids[0].proof.scan"))
        #expect(nested.formworksProfileTooLarge == false)
        // Too large comes first, as the app answered it before files existed.
        let large = #"{"title": "F", "components": [{"file": {"id": "f", "required": true}}, {"group": {"id": "g", "repeat": {"min": 20000, "max": 20000}, "components": [{"text": {"id": "t"}}, {"text": {"id": "u"}}]}}]}"#
        let stored = try FormDefinition(json: Array(large.utf8), reading: .stored)
        #expect(stored.formworksProfileRefusal == .tooLarge)
    }
}
