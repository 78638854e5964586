module readpast-conformance-agent

go 1.19

require github.com/readpast/readpast/clients/go v0.0.0

replace github.com/readpast/readpast/clients/go => ../../../go
