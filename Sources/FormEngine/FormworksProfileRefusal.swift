/// Why ``FormDefinition/formworksProfile(language:)`` cannot serve a form (``FormDefinition/formworksProfileRefusal``).
public enum FormworksProfileRefusal: Error, Sendable, Equatable {
    /// Its repeats would add more components than an upload may; only a definition stored before
    /// that limit existed can be so.
    case tooLarge
    /// A `file` input the profile would serve as required: Formworks has no file component, so a
    /// profile client could never submit the form. `path` is the input's key path in the profile
    /// (`photo`, `addresses[0].photo`).
    case requiredFileInput(path: String)
}
