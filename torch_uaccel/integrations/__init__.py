"""torch_uaccel in other libraries' models: ``transformers`` (patch and unpatch a model instance) and
``kernels`` (a kernel mapping for the ``kernels`` package's ``kernelize``)."""
