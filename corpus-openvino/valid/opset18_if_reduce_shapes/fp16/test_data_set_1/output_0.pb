By/sink_port_0J0ЯХЦ=жsr?nE)=ЏTїq…?ТIg?
[кѕв#ѕiуµ>А(ї?H?їйъ?