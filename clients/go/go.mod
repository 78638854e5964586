module github.com/readpast/readpast/clients/go

go 1.19
