import FormStore
